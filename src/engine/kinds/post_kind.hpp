// WindowPoSt and WinningPoSt as job kinds (window-post, winning-post): one PoSt partition proof of
// 192 bytes per request, from the request fields Curio sends (post-snap.md §1.2):
//
//   registered_proof  0-14 by number (filecoin/post/config.hpp) and of this kind: window-post takes
//                     5-14 (V1 and V1_1), winning-post 0-4; it fixes the sector size, the tree shape
//                     and the challenge rule
//   sector_size       0, or the registered proof's sector size
//   randomness        32 bytes, a canonical field element (Curio clears byte 31's top bits; a
//                     non-Fr value is refused, never masked)
//   vanilla_proofs    one bincode FallbackPoStSectorProof per sector: window-post 1..sector_count
//                     sectors in ascending id order, winning-post exactly one (counted before any is
//                     decoded)
//   partition_index   window-post: only the V1 challenges depend on it (the Rust pipeline's failure
//                     for k > 0 does not exist here); winning-post: 0
//   miner_id          any actor id: its prover id is a field element for every u64, and it enters
//                     neither the circuit nor the challenges
//
// The steps are filecoin::post::PostJob's (filecoin/post/post_job.hpp); this kind only adds the key:
//
//   prepare     decode and check every sector's vanilla proof (the failed check named, before any key
//               is touched), derive the public inputs, acquire wpost-<size> / winning-<size> from the
//               SrsManager (family_key_loaders.cpp: the .params decoded against the recorded shape);
//               64 GiB is wpost-64g / winning-64g, never a 32 GiB key
//   synthesize  the one partition's witness; its inputs must equal the derived ones
//   verify      the proof against inputs re-derived from the public values and the key's vk
//
// Errors are one line naming the kind and the field: "window-post: vanilla_proofs[3] (sector 17): ...".
#pragma once

#include <memory>

#include "engine/job_kind.hpp"

namespace cuzk::engine::kinds {

std::shared_ptr<JobKind> make_window_post_kind();
std::shared_ptr<JobKind> make_winning_post_kind();

}  // namespace cuzk::engine::kinds
