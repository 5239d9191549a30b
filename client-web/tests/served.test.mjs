// @ts-check
/**
 * The server serves the client's scripts and stylesheets without their comments (server
 * net/slim.rs). This proves the slim copies are the same programs: every served script has the
 * same tokens as its source (TypeScript's scanner, comments and whitespace skipped; a template
 * literal's text is one token, so a changed byte in it shows), and every served stylesheet
 * parses to the same rules in Chromium. And what it saves: the scripts' bytes, before and after.
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { newPage, repo, suite } from './support.mjs';

const env = suite();
const publicDir = path.join(repo, 'client-web', 'public');

/** @param {string} dir @param {string} prefix @returns {string[]} */
function files(dir, prefix = '') {
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n), `${prefix}${n}/`) : [`${prefix}${n}`]));
}

/** Tokens after which a `/` divides; after anything else it starts a regular expression. */
const DIVIDES = new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken, ts.SyntaxKind.CloseBraceToken, ts.SyntaxKind.ThisKeyword, ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.RegularExpressionLiteral]);

/**
 * A script's tokens as `kind:text`, comments and whitespace skipped. A template literal's
 * pieces are read as such (a stack of brace depths inside its `${…}`).
 * @param {string} text
 * @returns {string[]}
 */
function tokens(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  /** @type {string[]} */
  const out = [];
  /** @type {number[]} */
  const braces = [];
  let prev = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !DIVIDES.has(prev)) kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.OpenBraceToken && braces.length) braces[braces.length - 1]++;
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.length) {
      if (braces[braces.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
      } else braces[braces.length - 1]--;
    }
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(0);
    out.push(`${kind}:${scanner.getTokenText()}`);
    prev = kind;
  }
  assert.equal(braces.length, 0, 'every template literal closed');
  return out;
}

/** @param {string} url */
async function served(url) {
  const res = await fetch(`${env.server.url}${url}`, { headers: { 'accept-encoding': 'identity' } });
  assert.equal(res.status, 200, url);
  return res.text();
}

test('every served script has the same tokens as its source, and is smaller', async () => {
  const scripts = files(publicDir).filter((f) => f.endsWith('.js'));
  assert.ok(scripts.length > 20, scripts.join(' '));
  let before = 0;
  let after = 0;
  for (const rel of scripts) {
    const source = readFileSync(path.join(publicDir, rel), 'utf8');
    const url = rel === 'sw.js' ? '/sw.js' : `/${rel}`;
    const text = await served(url);
    assert.deepEqual(tokens(text), tokens(source), rel);
    before += source.length;
    after += text.length;
  }
  assert.ok(after < before * 0.8, `scripts ${before} B served as ${after} B`);
});

test('every served stylesheet parses to the same rules as its source', async () => {
  const sheets = files(publicDir).filter((f) => f.endsWith('.css'));
  assert.ok(sheets.length >= 3, sheets.join(' '));
  const { page, context } = await newPage(env.browser);
  try {
    await page.goto(`${env.server.url}/`);
    for (const rel of sheets) {
      const source = readFileSync(path.join(publicDir, rel), 'utf8');
      const text = await served(`/${rel}`);
      assert.ok(text.length < source.length, rel);
      const rules = await page.evaluate(
        (texts) =>
          texts.map((t) => {
            const sheet = new CSSStyleSheet();
            sheet.replaceSync(t);
            return [...sheet.cssRules].map((r) => r.cssText);
          }),
        [source, text],
      );
      assert.ok(rules[0].length > 0, rel);
      assert.deepEqual(rules[1], rules[0], rel);
    }
  } finally {
    await context.close();
  }
});
