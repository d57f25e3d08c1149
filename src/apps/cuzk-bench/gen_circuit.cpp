#include "apps/cuzk-bench/gen_circuit.hpp"

#include <chrono>
#include <filesystem>
#include <vector>

#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::bench {

Result<GenCircuitOutput> gen_circuit(std::uint32_t n, const std::string& dir, const std::string& id,
                                     std::uint64_t seed) {
  using math::Fr;
  if (n < 2) return Error{"--constraints must be at least 2"};
  auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{dir + ": " + ec.message()};
  // Variables: 0 = ONE, 1 = out (public), 2 .. n+1 = x_0 .. x_{n-1}.
  groth16::R1csShape shape;
  shape.num_inputs = 2;
  shape.num_aux = n;
  auto xv = [](std::uint32_t i) { return std::uint32_t(2 + i); };
  std::vector<Fr> w(2 + n);
  w[0] = Fr::one();
  w[xv(0)] = Fr::from_u64(seed | 3);
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    Fr c = Fr::from_u64(i + 1);
    std::pair<std::uint32_t, Fr> a[] = {{xv(i), Fr::one()}};
    std::pair<std::uint32_t, Fr> b[] = {{0, c}, {xv(i), Fr::one()}};
    std::pair<std::uint32_t, Fr> cc[] = {{xv(i + 1), Fr::one()}};
    shape.a.add_row(a);
    shape.b.add_row(b);
    shape.c.add_row(cc);
    w[xv(i + 1)] = w[xv(i)] * (w[xv(i)] + c);
  }
  {  // ONE * x_{n-1} = out
    std::pair<std::uint32_t, Fr> a[] = {{0, Fr::one()}};
    std::pair<std::uint32_t, Fr> b[] = {{xv(n - 1), Fr::one()}};
    std::pair<std::uint32_t, Fr> cc[] = {{1, Fr::one()}};
    shape.a.add_row(a);
    shape.b.add_row(b);
    shape.c.add_row(cc);
    w[1] = w[xv(n - 1)];
  }
  if (auto row = groth16::first_unsatisfied_row(shape, w))
    return Error{"internal: row " + std::to_string(*row) + " unsatisfied"};
  shape.append_input_rows();
  auto pk = groth16::generate_test_key(shape, groth16::HBasis::kOddCosetLagrange, groth16::ToxicWaste::from_seed(seed));
  if (!pk) return Error{pk.error()};
  GenCircuitOutput out;
  out.zkey = dir + "/" + id + ".zkey";
  out.wtns = dir + "/" + id + ".wtns";
  if (auto st = formats::write_zkey(out.zkey, *pk, shape); !st) return Error{st.error()};
  if (auto st = formats::write_wtns(out.wtns, w); !st) return Error{st.error()};
  out.constraints = n;
  out.variables = std::uint32_t(w.size());
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cuzk::bench
