// grpc.health.v1.Health/Check for the server tests (server_test, auth_test): no generated code, the
// request and answer are hand-encoded.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace cuzk::test {

// grpc.health.v1.Health/Check with a hand-encoded request (field 1: the service name); the answer's
// field 1 is the status: 1 SERVING, 2 NOT_SERVING (3 SERVICE_UNKNOWN is a NOT_FOUND error).
inline std::string health(const std::shared_ptr<grpc::Channel>& ch, const std::string& service = "") {
  grpc::GenericStub stub(ch);
  std::string req;
  if (!service.empty()) req = std::string("\x0a") + char(service.size()) + service;
  grpc::Slice slice(req);
  grpc::ByteBuffer in(&slice, 1), out;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &in, &out,
                 [&](grpc::Status st) { done.set_value(st); });
  grpc::Status st = done.get_future().get();
  if (!st.ok()) return "error " + std::to_string(st.error_code());
  std::vector<grpc::Slice> parts;
  if (!out.Dump(&parts).ok()) return "undecodable";
  std::string bytes;
  for (auto& p : parts) bytes.append(reinterpret_cast<const char*>(p.begin()), p.size());
  if (bytes.empty()) return "UNKNOWN";  // status 0, the default, is not encoded
  if (bytes.size() == 2 && bytes[0] == 0x08) return bytes[1] == 1 ? "SERVING" : bytes[1] == 2 ? "NOT_SERVING" : "other";
  return "undecodable";
}

inline std::string health(const std::string& target, const std::string& service) {
  return health(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()), service);
}

}  // namespace cuzk::test
