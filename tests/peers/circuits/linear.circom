pragma circom 2.0.0;

// Compiled with --O0 so that the linear constraints survive in the R1CS:
// they appear with empty A and B (0 = C) or constant-only sides.
// Public signals (public.json order): [out, sum, prod, a, b].
template Linear(N) {
    signal input a;
    signal input b;
    signal input c;
    signal input d[N];
    signal output out;
    signal output sum;
    signal output prod;

    signal l0;
    signal acc[N+1];
    signal w[N];

    out <== 3*a + 5*b - c + 7;          // linear only
    l0 <== out;                           // signal = signal (kept at O0)
    acc[0] <== 0;                         // signal = constant (kept at O0)
    for (var i = 0; i < N; i++) {
        acc[i+1] <== acc[i] + d[i] + i;    // chain of sums
        w[i] <== (i + 1) * d[i] - 2*acc[i]; // linear with a coefficient
    }
    var t = 0;
    for (var i = 0; i < N; i++) {
        t += w[i];
    }
    sum <== t + acc[N] + l0;              // one big linear combination
    prod <== (a + b + 1) * (acc[N] - c);  // the non-linear constraint
}

component main {public [a, b]} = Linear(16);
