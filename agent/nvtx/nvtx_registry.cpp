#include "agent/nvtx/nvtx_registry.h"

#include <atomic>

#include "agent/nvtx/step_name.h"

namespace bubblescope::agent {
namespace {

std::atomic<const NvtxDomain*> g_domains{nullptr};
std::atomic<const NvtxCategoryName*> g_categories{nullptr};

// Prepends to a lock-free list whose entries are never removed.
template <class T>
void prepend(std::atomic<const T*>& head, T* entry) {
  const T* old = head.load(std::memory_order_relaxed);
  do {
    entry->next = old;
  } while (!head.compare_exchange_weak(old, entry, std::memory_order_release,
                                       std::memory_order_relaxed));
}

}  // namespace

const NvtxDomain* createDomain(std::string_view name) {
  for (const NvtxDomain* d = g_domains.load(std::memory_order_acquire); d != nullptr; d = d->next) {
    if (d->name == name) return d;
  }
  try {
    auto* d = new NvtxDomain;
    d->name = std::string(name);
    d->control = name == kControlDomainName;
    d->nccl = name == kNcclDomainName;
    prepend(g_domains, d);
    return d;
  } catch (...) {
    return nullptr;  // out of memory: events of this domain land in the default domain
  }
}

const NvtxString* registerString(const NvtxDomain* domain, std::string_view text) {
  try {
    auto* s = new NvtxString;
    s->text = std::string(text);
    s->domain = domain;
    s->step = parseStepName(text);
    s->ncclOp = traces::ncclOpOfApiName(text);  // here, once: NCCL registers each name once
    return s;
  } catch (...) {
    return nullptr;  // out of memory: events using it carry an empty name
  }
}

void nameCategory(const NvtxDomain* domain, uint32_t category, std::string_view name) {
  try {
    auto* c = new NvtxCategoryName;
    c->domain = domain;
    c->category = category;
    c->name = std::string(name);
    prepend(g_categories, c);
  } catch (...) {
  }
}

const NvtxCategoryName* newestCategoryName() {
  return g_categories.load(std::memory_order_acquire);
}

}  // namespace bubblescope::agent
