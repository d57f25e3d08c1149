// SnapDeals (EmptySectorUpdate) as a job kind (snap-update): P partition proofs of 192 bytes,
// concatenated in partition order (2 KiB 192, 8 MiB 768, 512 MiB / 32 GiB / 64 GiB 3,072), from the
// request fields Curio's ProveUpdateCuzk sends (post-snap.md §1.2):
//
//   registered_proof  the update proof, 0-4 (StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1); it fixes the
//                     sector size, tree shape, partitions, challenges and h
//   sector_size       0, or the update proof's sector size
//   comm_r_old, comm_r_new, comm_d_new   raw 32 bytes each, canonical field elements
//   vanilla_proofs    one bincode PartitionProof per partition, k = 0..P-1 (counted before any is
//                     decoded)
//
// The steps are filecoin::snap::SnapJob's (filecoin/snap/snap_job.hpp), run partition by partition
// through the same pipeline as PoRep (partitioned_prepared.hpp); this kind only adds the key:
//
//   prepare     decode and check every partition proof (the failed check named, before any key is
//               touched), derive the public inputs, acquire snap-<size> (family_key_loaders.cpp: the
//               .params decoded against the recorded shape)
//   synthesize  partition k's witness; its inputs must equal the derived ones
//   verify      every partition proof against inputs re-derived from the commitments and the key's vk
//
// Errors are one line naming the kind and the field: "snap-update: vanilla_proofs[3]: ...".
#pragma once

#include <memory>

#include "engine/job_kind.hpp"

namespace cuzk::engine::kinds {

std::shared_ptr<JobKind> make_snap_update_kind();

}  // namespace cuzk::engine::kinds
