pragma circom 2.0.0;

// MulChain(N): x[i+1] = x[i]*b + i, exactly N non-linear constraints.
// Public signals (public.json order): [out, a]. Private: b.
template MulChain(N) {
    signal input a;
    signal input b;
    signal output out;
    signal x[N+1];
    x[0] <== a;
    for (var i = 0; i < N; i++) {
        x[i+1] <== x[i] * b + i;
    }
    out <== x[N];
}

component main {public [a]} = MulChain(200);
