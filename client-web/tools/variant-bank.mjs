// @ts-check
/**
 * Solo practice's variant puzzles (A10): `node tools/variant-bank.mjs` asks the terminal tool
 * (`sudoku-race generate --variant V --difficulty D --count 2 --seed S`, from $CARGO_TARGET_DIR or
 * target/, debug) for two puzzles of each variant at each difficulty and writes them into
 * public/assets/solo/bank.json as `variants: {V: {D: [{p, s, regions?, cages?}]}}`, leaving the
 * classic part (`sudoku-race bank`'s, with its hint steps) as it is. Seeded: the same tool
 * writes the same bank.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const bankPath = path.join(here, '..', 'public', 'assets', 'solo', 'bank.json');
const tool = path.join(process.env.CARGO_TARGET_DIR ?? path.join(here, '..', '..', 'target'), 'debug', 'sudoku-race');
const LEVELS = ['easy', 'medium', 'hard', 'expert'];

/** @type {Record<string, Record<string, object[]>>} */
const variants = {};
for (const [k, variant] of ['x', 'windoku', 'jigsaw', 'killer'].entries()) {
  variants[variant] = {};
  for (const [j, level] of LEVELS.entries()) {
    const out = execFileSync(tool, ['generate', '--variant', variant, '--difficulty', level, '--count', '2', '--seed', String(100 + 10 * k + j)], { encoding: 'utf8' });
    variants[variant][level] = out.trim().split('\n').map((line) => {
      const v = JSON.parse(line);
      return { p: v.puzzle, s: v.solution, ...(v.regions ? { regions: v.regions } : {}), ...(v.cages ? { cages: v.cages } : {}) };
    });
  }
}
const bank = JSON.parse(readFileSync(bankPath, 'utf8'));
bank.variants = variants;
writeFileSync(bankPath, JSON.stringify(bank));
console.log(`wrote ${bankPath}: ${Object.values(variants).flatMap((v) => Object.values(v)).flat().length} variant puzzles`);
