#!/usr/bin/env python3
"""Generates src/math/ff/mont_mul_x86.hpp: Montgomery multiplication for 4- and 6-limb moduli with
x86-64 MULX/ADCX/ADOX (BMI2 + ADX), two independent carry chains per row.

Run: scripts/gen_mont_asm.py > src/math/ff/mont_mul_x86.hpp

Algorithm (CIOS with the "no final carry" bound): for each limb b[i]
  t[0..N] += a * b[i]            (lo halves on the OF chain, hi halves on the CF chain)
  m = t[0] * (-q^-1) mod 2^64
  t[0..N] += m * q               (t[0] becomes 0)
  t >>= 64                       (a register rename: the zeroed t[0] register becomes the new t[N])
This is valid when the top word of q is below 2^63 - 1: then t < 2q(2^64 + 1) < 2^(64(N+1)) throughout,
no carry leaves t[N], and the result is < 2q, which the caller reduces with one conditional
subtraction. BLS12-381's p (381 bits) and r (255 bits) qualify.
"""

def gen(n):
    lines = []
    emit = lines.append
    regs = [f"t{k}" for k in range(n + 1)]  # operand names; T[k] = regs[(k + shift) % (n + 1)]
    for r in regs + ["zero"]:
        emit(f'"xorq %[{r}], %[{r}]\\n\\t"')
    shift = 0
    T = lambda k: regs[(k + shift) % (n + 1)]
    for i in range(n):
        emit(f'"movq {8 * i}(%[b]), %%rdx\\n\\t"')
        emit('"xorq %[zero], %[zero]\\n\\t"')  # clears CF and OF
        for j in range(n):
            emit(f'"mulxq {8 * j}(%[a]), %[lo], %[hi]\\n\\t"')
            emit(f'"adoxq %[lo], %[{T(j)}]\\n\\t"')
            emit(f'"adcxq %[hi], %[{T(j + 1)}]\\n\\t"')
        emit(f'"adoxq %[zero], %[{T(n)}]\\n\\t"')
        emit(f'"movq %[{T(0)}], %%rdx\\n\\t"')
        emit('"imulq %[inv], %%rdx\\n\\t"')
        emit('"xorq %[zero], %[zero]\\n\\t"')
        for j in range(n):
            emit(f'"mulxq %[q{j}], %[lo], %[hi]\\n\\t"')
            emit(f'"adoxq %[lo], %[{T(j)}]\\n\\t"')
            emit(f'"adcxq %[hi], %[{T(j + 1)}]\\n\\t"')
        emit(f'"adoxq %[zero], %[{T(n)}]\\n\\t"')
        shift += 1  # T(0) is now zero and becomes the top limb
    result = [T(k) for k in range(n)]
    outs = ", ".join([f'[{r}] "=&r"({r})' for r in regs] + ['[lo] "=&r"(lo)', '[hi] "=&r"(hi)', '[zero] "=&r"(zero)'])
    # The array operands tell the compiler which memory the asm reads (no "memory" clobber needed).
    ins = ", ".join(['[a] "r"(a)', '[b] "r"(b)', '[inv] "m"(inv)'] + [f'[q{j}] "m"(q[{j}])' for j in range(n)] +
                    [f'"m"(*(const std::uint64_t(*)[{n}])a)', f'"m"(*(const std::uint64_t(*)[{n}])b)'])
    body = "\n      ".join(lines)
    decl = ", ".join(regs + ["lo", "hi", "zero"])
    store = "\n  ".join(f"r[{k}] = {result[k]};" for k in range(n))
    return f'''// r = a * b * 2^-{64 * n} mod q, result in [0, 2q) (caller subtracts q once if needed).
inline void mont_mul_{n}_x86(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                            const std::uint64_t* q, std::uint64_t inv) {{
  std::uint64_t {decl};
  asm(
      {body}
      : {outs}
      : {ins}
      : "rdx", "cc");
  {store}
}}
'''


def gen_sqr(n):
    """Montgomery squaring r = a^2 * 2^-64n mod q, result in [0, 2q), in three phases:
      1. off-diagonal products sum_{i<j} a_i a_j 2^(64(i+j)) row by row (limbs spilled to s[] as soon
         as no later row touches them: at most n live limb registers);
      2. S = 2 * off-diagonal + sum a_i^2 2^(128 i) in one pass, doubling on the CF chain (ADCX) and
         the squares on the OF chain (ADOX); S[0..n-1] stay in registers, S[n..2n-1] go to s[];
      3. u = (S_lo + m q) / 2^(64n) by n reduction rounds (u <= q because S_lo < 2^(64n)), then
         u + S_hi, which is < 2q because S_hi = floor(a^2 / 2^(64n)) < q.
    n(n-1)/2 + n + n^2 multiplications instead of 2n^2."""
    lines = []
    emit = lines.append
    regs = [f"t{k}" for k in range(n + 1)]
    # phase 1: limb k of the off-diagonal sum lives in a register from first write to spill
    free = list(regs)
    where = {}
    emit('"xorq %[zero], %[zero]\\n\\t"')
    for i in range(n - 1):
        fresh = range(2 * i + 1, n + 1) if i == 0 else [i + n]
        for k in fresh:
            where[k] = free.pop(0)
            emit(f'"movq $0, %[{where[k]}]\\n\\t"')
        emit(f'"movq {8 * i}(%[a]), %%rdx\\n\\t"')
        emit('"xorq %[lo], %[lo]\\n\\t"')  # clears CF and OF
        for j in range(i + 1, n):
            emit(f'"mulxq {8 * j}(%[a]), %[lo], %[hi]\\n\\t"')
            emit(f'"adoxq %[lo], %[{where[i + j]}]\\n\\t"')
            emit(f'"adcxq %[hi], %[{where[i + j + 1]}]\\n\\t"')
        emit(f'"adoxq %[zero], %[{where[i + n]}]\\n\\t"')
        done = [2 * i + 1, 2 * i + 2] if i < n - 2 else list(range(2 * i + 1, 2 * n - 1))
        for k in done:
            emit(f'"movq %[{where[k]}], {8 * k}(%[s])\\n\\t"')
            free.append(where.pop(k))
    assert not where
    # phase 2: double and add the squares; S[k] for k < n into t_k, the rest through "zero" into s[]
    emit('"xorq %[lo], %[lo]\\n\\t"')
    for i in range(n):
        emit(f'"movq {8 * i}(%[a]), %%rdx\\n\\t"')
        emit(f'"mulxq %%rdx, %[lo], %[hi]\\n\\t"')
        for k, part in ((2 * i, "lo"), (2 * i + 1, "hi")):
            d = regs[k] if k < n else "zero"
            if k == 0 or k == 2 * n - 1:
                emit(f'"movq $0, %[{d}]\\n\\t"')
            else:
                emit(f'"movq {8 * k}(%[s]), %[{d}]\\n\\t"')
            emit(f'"adcxq %[{d}], %[{d}]\\n\\t"')
            emit(f'"adoxq %[{part}], %[{d}]\\n\\t"')
            if k >= n:
                emit(f'"movq %[{d}], {8 * k}(%[s])\\n\\t"')
    emit(f'"movq $0, %[{regs[n]}]\\n\\t"')
    # phase 3: reduce S_lo; after the first ADOX of a round T(0) is 0 and serves as the zero operand
    shift = 0
    T = lambda k: regs[(k + shift) % (n + 1)]
    for i in range(n):
        emit(f'"movq %[{T(0)}], %%rdx\\n\\t"')
        emit('"imulq %[inv], %%rdx\\n\\t"')
        emit('"xorq %[lo], %[lo]\\n\\t"')
        for j in range(n):
            emit(f'"mulxq %[q{j}], %[lo], %[hi]\\n\\t"')
            emit(f'"adoxq %[lo], %[{T(j)}]\\n\\t"')
            emit(f'"adcxq %[hi], %[{T(j + 1)}]\\n\\t"')
        emit(f'"adoxq %[{T(0)}], %[{T(n)}]\\n\\t"')
        shift += 1
    emit(f'"addq {8 * n}(%[s]), %[{T(0)}]\\n\\t"')
    for k in range(1, n):
        emit(f'"adcq {8 * (n + k)}(%[s]), %[{T(k)}]\\n\\t"')
    result = [T(k) for k in range(n)]
    outs = ", ".join([f'[{r}] "=&r"({r})' for r in regs] + ['[lo] "=&r"(lo)', '[hi] "=&r"(hi)', '[zero] "=&r"(zero)',
                      f'"=m"(*(std::uint64_t(*)[{2 * n}])s)'])
    ins = ", ".join(['[a] "r"(a)', '[s] "r"(s)', '[inv] "m"(inv)'] + [f'[q{j}] "m"(q[{j}])' for j in range(n)] +
                    [f'"m"(*(const std::uint64_t(*)[{n}])a)'])
    body = "\n      ".join(lines)
    decl = ", ".join(regs + ["lo", "hi", "zero"])
    store = "\n  ".join(f"r[{k}] = {result[k]};" for k in range(n))
    return f'''// r = a^2 * 2^-{64 * n} mod q, result in [0, 2q) (caller subtracts q once if needed).
inline void mont_sqr_{n}_x86(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* q, std::uint64_t inv) {{
  std::uint64_t {decl};
  std::uint64_t s[{2 * n}];
  asm(
      {body}
      : {outs}
      : {ins}
      : "rdx", "cc");
  {store}
}}
'''

print("""// GENERATED by scripts/gen_mont_asm.py -- do not edit by hand.
// Montgomery multiplication with MULX/ADCX/ADOX for x86-64 CPUs with BMI2 and ADX (every x86-64
// server CPU since Broadwell / Zen). See the generator for the algorithm and its bound.
#pragma once

#include <cstdint>

namespace cuzk::math::x86 {
""")
print(gen(4))
print(gen(6))
print(gen_sqr(6))
print("}  // namespace cuzk::math::x86")
