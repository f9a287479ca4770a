// GTEST_SKIP with the reason when this process sees no CUDA device: one
// definition for every GPU test (label `gpu`), so all say why they skipped.
#pragma once

#include <gtest/gtest.h>

#include "fhe/core/device_info.h"

#define FHE_SKIP_WITHOUT_GPU()                                                          \
  do {                                                                                  \
    const ::fhe::GpuInventory inventory = ::fhe::query_gpus();                          \
    if (inventory.gpus.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.status; \
  } while (0)
