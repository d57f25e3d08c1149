// The daemon's own memory, as Linux reports it: what status shows and what the engine measures a
// solo partition's peak with (reset the kernel's peak mark at dispatch, read it at the end).
#pragma once

#include <cstdint>
#include <string>

namespace cuzk::engine {

// Process memory from /proc/self/status (VmRSS, VmHWM), 0 when unavailable.
std::uint64_t process_rss_bytes();
std::uint64_t process_peak_rss_bytes();
// Resets the peak mark (VmHWM) to the current RSS (/proc/self/clear_refs "5"); false where the
// kernel does not allow it.
bool reset_peak_rss();
// Total physical memory (MemTotal of /proc/meminfo), 0 when unavailable.
std::uint64_t system_memory_bytes();
// A random UUIDv4 string (request ids the client left empty).
std::string make_uuid_v4();

}  // namespace cuzk::engine
