#pragma once
// Copies an NVTX message (a NUL-terminated string the caller may free once the call returns) into
// an open range's inline text, measuring it on the way: strnlen then memcpy were two library
// calls, most of what a dormant push cost. Pure; every tracked push runs it.
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bubblescope::agent {

#if defined(__SSE2__) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define BUBBLESCOPE_MESSAGE_COPY_SSE2 1
#endif
#else
#define BUBBLESCOPE_MESSAGE_COPY_SSE2 1
#endif
#endif

// Bytes copyMessage may read past a message's terminator (never across a page boundary).
inline constexpr uint32_t kMessageCopyChunk = 16;

// The rest of copyMessage from byte `n` on (the first `n` are copied and hold no terminator).
uint32_t copyMessageFrom(char* out, const char* text, uint32_t capacity, uint32_t n);

// A message shorter than 16 bytes (most are), in one load, straight-line (no call, no loop: a
// loop here cost twice as much in the dormant push): copied to `out` (16 bytes of room), its
// length in `size`. False, with `out` and `size` unspecified, for a longer message or one whose
// 16 bytes would reach into the next page. The load may read past the terminator, never into the
// next page (which may be unmapped), as the C library's own strlen does.
inline bool copyShortMessage(char* out, const char* text, uint32_t* size) {
#if defined(BUBBLESCOPE_MESSAGE_COPY_SSE2)
  constexpr uintptr_t kPage = 4096;
  if ((reinterpret_cast<uintptr_t>(text) & (kPage - 1)) > kPage - kMessageCopyChunk) return false;
  const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), chunk);
  const auto zeros =
      static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_setzero_si128())));
  *size = static_cast<uint32_t>(__builtin_ctz(zeros | (1u << kMessageCopyChunk)));
  return zeros != 0;
#else
  (void)out;
  (void)text;
  (void)size;
  return false;
#endif
}

// The message's length, cut at `capacity` bytes (backed up to a UTF-8 character boundary), with
// that many bytes copied to `out` (`capacity` bytes at least, and 16). Bytes of `out` past the
// length are unspecified (the copy goes 16 at a time): readers take the length, never a
// terminator.
inline uint32_t copyMessage(char* out, const char* text, uint32_t capacity) {
  uint32_t size = 0;
  if (__builtin_expect(copyShortMessage(out, text, &size), 1) && size <= capacity) return size;
  return copyMessageFrom(out, text, capacity, 0);
}

}  // namespace bubblescope::agent
