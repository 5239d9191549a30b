// The tdoku side of solver-vs-tdoku.sh: `tdoku_harness PASSES FILE...` prints, per file,
// `FILE<TAB>median ns per puzzle<TAB>puzzles<TAB>unique<TAB>solutions counted`, timing
// TdokuSolverDpllTriadSimd(puzzle, limit 2) over every puzzle of the file in each pass, the
// same uniqueness check as our solve_set bench. Our code, linked against tdoku's sources
// (built by the script; tdoku is BSD-2-Clause, not vendored here).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <time.h>
#include <string>
#include <vector>

#include "tdoku.h"

// This thread's CPU time in seconds: the machine is shared, and wall time would count the
// time other processes held the core.
static double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: tdoku_harness PASSES FILE...\n");
        return 1;
    }
    int passes = std::max(1, std::atoi(argv[1]));
    for (int f = 2; f < argc; f++) {
        std::ifstream in(argv[f]);
        if (!in) {
            std::fprintf(stderr, "%s: cannot read\n", argv[f]);
            return 1;
        }
        // 81 characters and a terminator, padded: tdoku reads a vanilla puzzle's 82nd byte.
        std::vector<std::array<char, 96>> puzzles;
        std::string line;
        while (std::getline(in, line)) {
            if (line.size() < 81 || line[0] == '#') continue;
            std::array<char, 96> p{};
            for (int i = 0; i < 81; i++) p[i] = (line[i] >= '1' && line[i] <= '9') ? line[i] : '.';
            puzzles.push_back(p);
        }
        std::vector<double> times;
        size_t unique = 0, counted = 0;
        char solution[96];
        for (int pass = 0; pass < passes; pass++) {
            size_t u = 0, c = 0, guesses = 0;
            double start = cpu_seconds();
            for (const auto &p : puzzles) {
                size_t n = TdokuSolverDpllTriadSimd(p.data(), 2, 0, solution, &guesses);
                u += n == 1;
                c += n;
            }
            times.push_back(cpu_seconds() - start);
            unique = u;
            counted = c;
        }
        std::sort(times.begin(), times.end());
        double ns = times[times.size() / 2] * 1e9 / std::max<size_t>(1, puzzles.size());
        std::printf("%s\t%.1f\t%zu\t%zu\t%zu\n", argv[f], ns, puzzles.size(), unique, counted);
    }
    return 0;
}
