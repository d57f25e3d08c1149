pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Num2Bits(64) of x and LessThan(64) of (x, y): most witness values are 0/1.
// Public signals (public.json order): [lt, parity, y].
template Bits() {
    signal input x;
    signal input y;
    signal output lt;
    signal output parity;

    component n2b = Num2Bits(64);
    n2b.in <== x;

    component cmp = LessThan(64);
    cmp.in[0] <== x;
    cmp.in[1] <== y;
    lt <== cmp.out;

    // xor of the low 8 bits, to use the bits in a few more products
    signal p[8];
    p[0] <== n2b.out[0];
    for (var i = 1; i < 8; i++) {
        p[i] <== p[i-1] + n2b.out[i] - 2 * p[i-1] * n2b.out[i];
    }
    parity <== p[7];
}

component main {public [y]} = Bits();
