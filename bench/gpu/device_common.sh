# Shared by the device-call scripts that run prebuilt binaries
# (run_{perf,affine,field,occ,ncu,shapes}_device.sh): unpacks $D/bins.tar.xz (made from a
# bench/gpu/build_prover.sh build) into $D/bin, sets B (the binaries) and OUT (the log folder, made),
# prints the GPU line and defines t (seconds since the start, for the step headers). Source it after
# setting D.
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
B=$D/bin
mkdir -p "$B" && tar -xJf "$D/bins.tar.xz" -C "$B" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,memory.used --format=csv,noheader
T0=$(date +%s)
t() { echo "($(( $(date +%s) - T0 )) s)"; }
