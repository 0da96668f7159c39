// The device side of simlod::DeviceBatch (include/simlod/device_batch.hpp): points copied piece
// by piece from two page-locked staging pieces on the batch's own stream.
//
// Ordering:
//   staged[k]  recorded after the copy from staging piece k: the host waits for it before it
//              writes piece k again (wait_staging);
//   checked    recorded after the check (queue_check) on the batch's stream, which follows its
//              copies: the host waits for it (finish_check), so an insert, which follows a
//              check, finds every copy landed;
//   consumed   recorded on the tree's stream after an insert read the batch: copies into the
//              batch after clear() wait for it on the device (reuse_device_batch).
#pragma once

#include "kernels/common/cuda_resources.cuh"
#include "kernels/entry.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

struct DeviceBatchStore {
  DeviceBatchStore(std::size_t capacity, int device);
  ~DeviceBatchStore();
  DeviceBatchStore(const DeviceBatchStore&) = delete;
  DeviceBatchStore& operator=(const DeviceBatchStore&) = delete;

  int device;
  DeviceMemory memory;
  Point* points = nullptr;
  StreamHandle stream;
  EventHandle staged[2];
  bool staged_pending[2] = {false, false};
  EventHandle consumed;
  EventHandle checked;
  unsigned long long* d_first_bad = nullptr;  ///< after the points: the check's result
  bool consumed_recorded = false;
};

}  // namespace simlod::detail::cuda
