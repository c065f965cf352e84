#pragma once
// The test side of the fake libnccl.so.2 (fake_nccl.cpp): what reached the library, and where
// NCCL would launch its kernels, for a program that makes the GPU's side of them.
#include <nccl.h>

#include <cstdint>

extern "C" {

uint64_t fakeNcclCalls();
uint64_t fakeNcclCommHash(ncclComm_t comm);

// Called where NCCL launches a kernel: inside a communication call made outside a group, or in
// the ncclGroupEnd that closes the outermost group, once for the whole group (one fused kernel,
// on the stream of the group's first call, named for that call's op), on the calling thread.
using FakeNcclLaunchHook = void (*)(void* context, const char* kernel, cudaStream_t stream);
// Sets (or, with nullptr, clears) the hook for the whole process.
void fakeNcclSetLaunchHook(FakeNcclLaunchHook hook, void* context);

}  // extern "C"
