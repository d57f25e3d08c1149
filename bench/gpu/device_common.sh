# Shared by the device-call scripts that run prebuilt binaries (run_perf_device.sh,
# run_affine_device.sh): unpacks $D/bins.tar.xz (made from a bench/gpu/build_prover.sh build) into
# $D/bin, sets B (the binaries) and OUT (the log folder, made), and prints the GPU line. Source it
# after setting D.
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
B=$D/bin
mkdir -p "$B" && tar -xJf "$D/bins.tar.xz" -C "$B" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,memory.used --format=csv,noheader
