#include "agent/nvtx/message_copy.h"

namespace bubblescope::agent {

uint32_t copyMessageFrom(char* out, const char* text, uint32_t capacity, uint32_t n) {
#if defined(BUBBLESCOPE_MESSAGE_COPY_SSE2)
  constexpr uintptr_t kPage = 4096;
  for (; n + kMessageCopyChunk <= capacity; n += kMessageCopyChunk) {
    const char* p = text + n;
    if ((reinterpret_cast<uintptr_t>(p) & (kPage - 1)) > kPage - kMessageCopyChunk) break;
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + n), chunk);
    const auto zeros =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_setzero_si128())));
    if (zeros != 0) return n + static_cast<uint32_t>(__builtin_ctz(zeros));
  }
#endif
  // The tail, and a chunk that would cross into the next page: byte by byte.
  for (; n < capacity; ++n) {
    const char c = text[n];
    if (c == 0) return n;
    out[n] = c;
  }
  // Longer than kept (text[capacity] exists: no terminator came before it).
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return n;
}

}  // namespace bubblescope::agent
