#include "formats/snarkjs_json.hpp"

#include <nlohmann/json.hpp>

#include "formats/binfile.hpp"
#include "formats/snarkjs_common.hpp"
#include "math/pairing/pairing.hpp"

namespace cuzk::formats {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;
using math::Fp12;
using math::Fp2;
using math::Fp6;

constexpr const char* kProtocol = "groth16";
constexpr const char* kCurve = "bls12381";

// ---------------------------------------------------------------------------------------------------
// Writing

OJson g1_json(const G1Affine& p) {
  if (p.infinity) return OJson::array({"0", "1", "0"});
  return OJson::array({p.x.to_decimal(), p.y.to_decimal(), "1"});
}

OJson fp2_json(const Fp2& v) { return OJson::array({v.c0.to_decimal(), v.c1.to_decimal()}); }

OJson g2_json(const G2Affine& p) {
  if (p.infinity) return OJson::array({OJson::array({"0", "0"}), OJson::array({"1", "0"}), OJson::array({"0", "0"})});
  return OJson::array({fp2_json(p.x), fp2_json(p.y), OJson::array({"1", "0"})});
}

OJson fp12_json(const Fp12& v) {
  auto fp6 = [](const Fp6& x) { return OJson::array({fp2_json(x.c0), fp2_json(x.c1), fp2_json(x.c2)}); };
  return OJson::array({fp6(v.c0), fp6(v.c1)});
}

// JSON.stringify(x, null, 1): one-space indentation, ": " after keys, no trailing newline.
std::string dump(const OJson& j) { return j.dump(1); }

Status write_text(const std::string& path, const std::string& text) {
  return write_file_bytes(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// ---------------------------------------------------------------------------------------------------
// Reading

// Parsing context: file name for messages.
struct Ctx {
  const std::string& name;
  Error err(const std::string& path, const std::string& msg) const {
    return Error{name + ": " + (path.empty() ? msg : path + ": " + msg)};
  }
};

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

Result<Json> parse_json_text(std::string_view text, const Ctx& ctx) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); what.starts_with("[json.exception.") && p != std::string::npos) {
      what = what.substr(p + 2);
    }
    return ctx.err("", "malformed JSON: " + one_line(what));
  }
}

Result<std::string> read_text(const std::string& path) {
  auto b = read_file_bytes(path);
  if (!b) return Error{b.error()};
  return std::string(b->begin(), b->end());
}

template <class F>
Result<F> parse_field(const Json& j, const std::string& path, const Ctx& ctx, const char* modulus_name) {
  if (!j.is_string()) return ctx.err(path, std::string("expected a decimal string, got ") + j.type_name());
  const std::string& s = j.get_ref<const std::string&>();
  auto v = F::from_decimal(s);
  if (!v) {
    std::string shown = s.size() > 40 ? s.substr(0, 40) + "..." : s;
    return ctx.err(path, "\"" + one_line(shown) + "\" is not a decimal number below " + modulus_name);
  }
  return *v;
}

Status expect_array(const Json& j, std::size_t n, const std::string& path, const Ctx& ctx) {
  if (!j.is_array())
    return ctx.err(path, std::string("expected an array of ") + std::to_string(n) + ", got " + j.type_name());
  if (j.size() != n) {
    return ctx.err(path, "expected an array of " + std::to_string(n) + " elements, got " + std::to_string(j.size()));
  }
  return ok_status();
}

Result<Fp2> parse_fp2(const Json& j, const std::string& path, const Ctx& ctx) {
  if (auto st = expect_array(j, 2, path, ctx); !st) return Error{st.error()};
  auto c0 = parse_field<Fp>(j[0], path + "[0]", ctx, "q");
  if (!c0) return Error{c0.error()};
  auto c1 = parse_field<Fp>(j[1], path + "[1]", ctx, "q");
  if (!c1) return Error{c1.error()};
  return Fp2{*c0, *c1};
}

// A G1 point [x, y, z]: z = 1 gives (x, y); the identity is accepted only as [0, 1, 0] and only
// when allow_identity. On-curve and subgroup membership are checked.
Result<G1Affine> parse_g1(const Json& j, const std::string& path, const Ctx& ctx, bool allow_identity) {
  if (auto st = expect_array(j, 3, path, ctx); !st) return Error{st.error()};
  Fp c[3];
  for (int i = 0; i < 3; ++i) {
    auto v = parse_field<Fp>(j[i], path + "[" + std::to_string(i) + "]", ctx, "q");
    if (!v) return Error{v.error()};
    c[i] = *v;
  }
  if (c[2].is_zero()) {
    if (!allow_identity) return ctx.err(path, "is the point at infinity (z = 0)");
    if (!c[0].is_zero() || !c[1].is_one()) return ctx.err(path, "has z = 0 but is not [\"0\", \"1\", \"0\"]");
    return G1Affine::identity();
  }
  if (!c[2].is_one()) return ctx.err(path + "[2]", "z must be \"1\" (affine point)");
  G1Affine p = G1Affine::from_xy(c[0], c[1]);
  if (!p.is_on_curve()) return ctx.err(path, "point is not on the curve");
  if (!g1_in_subgroup(p)) return ctx.err(path, "point is not in the prime-order subgroup");
  return p;
}

Result<G2Affine> parse_g2(const Json& j, const std::string& path, const Ctx& ctx, bool allow_identity) {
  if (auto st = expect_array(j, 3, path, ctx); !st) return Error{st.error()};
  Fp2 c[3];
  for (int i = 0; i < 3; ++i) {
    auto v = parse_fp2(j[i], path + "[" + std::to_string(i) + "]", ctx);
    if (!v) return Error{v.error()};
    c[i] = *v;
  }
  if (c[2].is_zero()) {
    if (!allow_identity) return ctx.err(path, "is the point at infinity (z = 0)");
    if (!c[0].is_zero() || c[1] != Fp2::one()) return ctx.err(path, "has z = 0 but is not the canonical infinity");
    return G2Affine::identity();
  }
  if (c[2] != Fp2::one()) return ctx.err(path + "[2]", "z must be [\"1\", \"0\"] (affine point)");
  G2Affine p = G2Affine::from_xy(c[0], c[1]);
  if (!p.is_on_curve()) return ctx.err(path, "point is not on the curve");
  if (!g2_in_subgroup(p)) return ctx.err(path, "point is not in the prime-order subgroup");
  return p;
}

Result<Fp12> parse_fp12(const Json& j, const std::string& path, const Ctx& ctx) {
  if (auto st = expect_array(j, 2, path, ctx); !st) return Error{st.error()};
  Fp6 h[2];
  for (int i = 0; i < 2; ++i) {
    std::string pi = path + "[" + std::to_string(i) + "]";
    if (auto st = expect_array(j[i], 3, pi, ctx); !st) return Error{st.error()};
    Fp2* dst[3] = {&h[i].c0, &h[i].c1, &h[i].c2};
    for (int k = 0; k < 3; ++k) {
      auto v = parse_fp2(j[i][k], pi + "[" + std::to_string(k) + "]", ctx);
      if (!v) return Error{v.error()};
      *dst[k] = *v;
    }
  }
  return Fp12{h[0], h[1]};
}

const Json* member(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Status check_string_member(const Json& obj, const char* key, const char* want, const Ctx& ctx) {
  const Json* v = member(obj, key);
  if (!v) return ctx.err(key, "is missing");
  if (!v->is_string()) return ctx.err(key, std::string("expected the string \"") + want + "\", got " + v->type_name());
  const std::string& s = v->get_ref<const std::string&>();
  if (s != want) {
    std::string shown = s.size() > 40 ? s.substr(0, 40) + "..." : s;
    return ctx.err(key, "is \"" + one_line(shown) + "\", expected \"" + want + "\"");
  }
  return ok_status();
}

// snarkjs names the curve "bls12381"; its CLI also accepts "bls12-381" as an input spelling.
Status check_curve(const Json& obj, const Ctx& ctx) {
  const Json* v = member(obj, "curve");
  if (v && v->is_string() && v->get_ref<const std::string&>() == "bls12-381") return ok_status();
  return check_string_member(obj, "curve", kCurve, ctx);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// proof.json

std::string proof_to_json(const groth16::Proof& proof) {
  OJson j;
  j["pi_a"] = g1_json(proof.a);
  j["pi_b"] = g2_json(proof.b);
  j["pi_c"] = g1_json(proof.c);
  j["protocol"] = kProtocol;
  j["curve"] = kCurve;
  return dump(j);
}

Status write_proof_json(const std::string& path, const groth16::Proof& proof) {
  return write_text(path, proof_to_json(proof));
}

Result<groth16::Proof> parse_proof_json(std::string_view text, const std::string& name) {
  Ctx ctx{name};
  auto j = parse_json_text(text, ctx);
  if (!j) return Error{j.error()};
  if (!j->is_object()) return ctx.err("", std::string("expected a JSON object, got ") + j->type_name());
  if (auto st = check_string_member(*j, "protocol", kProtocol, ctx); !st) return Error{st.error()};
  if (auto st = check_curve(*j, ctx); !st) return Error{st.error()};
  groth16::Proof p;
  for (const char* key : {"pi_a", "pi_b", "pi_c"}) {
    if (!member(*j, key)) return ctx.err(key, "is missing");
  }
  auto a = parse_g1((*j)["pi_a"], "pi_a", ctx, false);
  if (!a) return Error{a.error()};
  auto b = parse_g2((*j)["pi_b"], "pi_b", ctx, false);
  if (!b) return Error{b.error()};
  auto c = parse_g1((*j)["pi_c"], "pi_c", ctx, false);
  if (!c) return Error{c.error()};
  p.a = *a;
  p.b = *b;
  p.c = *c;
  return p;
}

Result<groth16::Proof> read_proof_json(const std::string& path) {
  auto t = read_text(path);
  if (!t) return Error{t.error()};
  return parse_proof_json(*t, path);
}

// ---------------------------------------------------------------------------------------------------
// public.json

std::string public_to_json(std::span<const Fr> values) {
  OJson j = OJson::array();
  for (const Fr& v : values) j.push_back(v.to_decimal());
  return dump(j);
}

Status write_public_json(const std::string& path, std::span<const Fr> values) {
  return write_text(path, public_to_json(values));
}

Result<std::vector<Fr>> parse_public_json(std::string_view text, const std::string& name) {
  Ctx ctx{name};
  auto j = parse_json_text(text, ctx);
  if (!j) return Error{j.error()};
  if (!j->is_array()) return ctx.err("", std::string("expected an array of decimal strings, got ") + j->type_name());
  std::vector<Fr> out;
  out.reserve(j->size());
  for (std::size_t i = 0; i < j->size(); ++i) {
    auto v = parse_field<Fr>((*j)[i], "[" + std::to_string(i) + "]", ctx, "r");
    if (!v) return Error{v.error()};
    out.push_back(*v);
  }
  return out;
}

Result<std::vector<Fr>> read_public_json(const std::string& path) {
  auto t = read_text(path);
  if (!t) return Error{t.error()};
  return parse_public_json(*t, path);
}

// ---------------------------------------------------------------------------------------------------
// verification_key.json

// ffjavascript/wasmcurves' BLS12-381 pairing uses the same final exponent as math::pairing
// (3 (p^12 - 1) / r, the noble/blst/zkcrypto convention): verification_key.json files exported by
// snarkjs are reproduced byte for byte (formats tests), so no conversion is needed.
math::Fp12 snarkjs_alphabeta(const G1Affine& alpha, const G2Affine& beta) { return math::pairing(alpha, beta); }

std::string verification_key_to_json(const groth16::VerifyingKey& vk) {
  OJson j;
  j["protocol"] = kProtocol;
  j["curve"] = kCurve;
  j["nPublic"] = vk.num_public_inputs();
  j["vk_alpha_1"] = g1_json(vk.alpha_g1);
  j["vk_beta_2"] = g2_json(vk.beta_g2);
  j["vk_gamma_2"] = g2_json(vk.gamma_g2);
  j["vk_delta_2"] = g2_json(vk.delta_g2);
  j["vk_alphabeta_12"] = fp12_json(snarkjs_alphabeta(vk.alpha_g1, vk.beta_g2));
  OJson ic = OJson::array();
  for (const auto& p : vk.ic) ic.push_back(g1_json(p));
  j["IC"] = std::move(ic);
  return dump(j);
}

Status write_verification_key_json(const std::string& path, const groth16::VerifyingKey& vk) {
  if (vk.ic.empty()) return Error{path + ": verifying key has no IC points"};
  return write_text(path, verification_key_to_json(vk));
}

Result<VerificationKeyJson> parse_verification_key_json(std::string_view text, const std::string& name) {
  Ctx ctx{name};
  auto j = parse_json_text(text, ctx);
  if (!j) return Error{j.error()};
  if (!j->is_object()) return ctx.err("", std::string("expected a JSON object, got ") + j->type_name());
  if (auto st = check_string_member(*j, "protocol", kProtocol, ctx); !st) return Error{st.error()};
  if (auto st = check_curve(*j, ctx); !st) return Error{st.error()};
  for (const char* key : {"nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"}) {
    if (!member(*j, key)) return ctx.err(key, "is missing");
  }
  VerificationKeyJson out;
  const Json& np = (*j)["nPublic"];
  if (!np.is_number_unsigned() || np.get<std::uint64_t>() > 0xfffffffeULL) {
    return ctx.err("nPublic", "expected a non-negative integer");
  }
  out.n_public = np.get<std::uint32_t>();
  groth16::VerifyingKey& vk = out.vk;
  vk.beta_g1 = G1Affine::identity();
  vk.delta_g1 = G1Affine::identity();
  auto alpha = parse_g1((*j)["vk_alpha_1"], "vk_alpha_1", ctx, false);
  if (!alpha) return Error{alpha.error()};
  vk.alpha_g1 = *alpha;
  struct G2Field {
    const char* key;
    G2Affine* dst;
  };
  for (G2Field g :
       {G2Field{"vk_beta_2", &vk.beta_g2}, G2Field{"vk_gamma_2", &vk.gamma_g2}, G2Field{"vk_delta_2", &vk.delta_g2}}) {
    auto p = parse_g2((*j)[g.key], g.key, ctx, false);
    if (!p) return Error{p.error()};
    *g.dst = *p;
  }
  const Json& ic = (*j)["IC"];
  if (!ic.is_array()) return ctx.err("IC", std::string("expected an array, got ") + ic.type_name());
  if (ic.size() != std::size_t(out.n_public) + 1) {
    return ctx.err("IC", "has " + std::to_string(ic.size()) +
                             " points, expected nPublic + 1 = " + std::to_string(std::uint64_t(out.n_public) + 1));
  }
  vk.ic.reserve(ic.size());
  for (std::size_t i = 0; i < ic.size(); ++i) {
    auto p = parse_g1(ic[i], "IC[" + std::to_string(i) + "]", ctx, true);
    if (!p) return Error{p.error()};
    vk.ic.push_back(*p);
  }
  if (const Json* ab = member(*j, "vk_alphabeta_12")) {
    auto v = parse_fp12(*ab, "vk_alphabeta_12", ctx);
    if (!v) return Error{v.error()};
    if (*v != snarkjs_alphabeta(vk.alpha_g1, vk.beta_g2)) {
      return ctx.err("vk_alphabeta_12", "does not equal e(vk_alpha_1, vk_beta_2)");
    }
    out.alphabeta_12 = *v;
  }
  return out;
}

Result<VerificationKeyJson> read_verification_key_json(const std::string& path) {
  auto t = read_text(path);
  if (!t) return Error{t.error()};
  return parse_verification_key_json(*t, path);
}

}  // namespace cuzk::formats
