pragma circom 2.0.0;

// 5 public inputs, 3 public outputs, 2 private inputs, a mix of products and sums.
// Public signals (public.json order): [o0, o1, o2, p0, p1, p2, p3, p4].
template MultiPublic() {
    signal input p[5];
    signal input s[2];
    signal output o[3];

    signal t0; signal t1; signal t2; signal t3; signal t4; signal t5;

    t0 <== p[0] * p[1];                 // product of two public inputs
    t1 <== (p[2] + s[0]) * (p[3] - 2);  // sums on both sides of a product
    t2 <== t0 * s[1] + p[4];            // product with a private input plus a public
    t3 <== t1 * t1;                     // square
    t4 <== (t2 + 5 * p[0]) * (s[0] + s[1] + 1);
    t5 <== t3 * p[4];

    o[0] <== t0 + t1 + 3;
    o[1] <== t4 * t2;
    o[2] <== t5 + 7 * t4 - p[1] * 11;
}

component main {public [p]} = MultiPublic();
