# Shared by the no-CMake GPU build scripts (build_prover.sh, build_setup_check.sh): compiler flags
# for sm_90a, an up-to-date test on -MD dependency files, and at most J compiles in the background.
# Source it after setting J. NVCC_EXTRA adds nvcc flags (e.g. -DCUZK_FIELD_KARATSUBA=1 for a variant).
ARCH="-gencode arch=compute_90a,code=sm_90a"
NVF="-std=c++20 -O3 $ARCH --expt-relaxed-constexpr -lineinfo -Isrc -diag-suppress 1675,550 -Xcompiler=-Wall ${NVCC_EXTRA:-}"
GXF="-std=c++20 -O3 -DNDEBUG -Isrc -Wall -Wextra -Wno-unused-parameter"

stale() {  # object missing, or older than a file in its dependency list
  local o=$1 d=${1%.o}.d
  [ -f "$o" ] && [ -f "$d" ] || return 0
  local f
  for f in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$d"); do
    [ "$f" -nt "$o" ] && return 0
  done
  return 1
}

pids=()
run() {  # run a compile in the background, at most J at a time
  while [ "$(jobs -rp | wc -l)" -ge "$J" ]; do wait -n || exit 1; done
  echo "  $*" | cut -c1-160
  "$@" &
  pids+=($!)
}

# compile_objects OBJDIR "CUDA sources without .cu" "host .cpp files": every stale object, J at a time.
compile_objects() {
  local dir=$1 f o p
  for f in $2; do
    o="$dir/$(basename "$f").o"
    if stale "$o"; then run nvcc $NVF -MD -MF "${o%.o}.d" -c "$f.cu" -o "$o"; fi
  done
  for f in $3; do
    o="$dir/host_$(basename "${f%.cpp}").o"
    if stale "$o"; then run g++ $GXF -MMD -MF "${o%.o}.d" -c "$f" -o "$o"; fi
  done
  for p in "${pids[@]}"; do wait "$p" || exit 1; done
}

# host_objects OBJDIR "host .cpp files": their object paths, space-separated.
host_objects() {
  local f
  for f in $2; do echo -n "$1/host_$(basename "${f%.cpp}").o "; done
}
