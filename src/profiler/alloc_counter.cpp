// The program's one replacement of the global operator new/delete (see alloc_counter.h). It calls
// malloc/free like the default and adds two relaxed increments on the calling thread's own counter.
#include "profiler/alloc_counter.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

// AddressSanitizer owns operator new (it checks that every delete matches its new), and
// ThreadSanitizer's static runtime defines it too (a second definition would not link): leave it
// to them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRATA_SANITIZER_OWNS_NEW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRATA_SANITIZER_OWNS_NEW 1
#endif
#endif

namespace strata::profiler {

namespace {

// One counter per thread, each on its own cache line so threads never share one while they count.
// Threads beyond the last slot share it (fetch_add keeps that exact, only slower).
constexpr int kSlots = 128;
struct alignas(64) Slot {
  std::atomic<int64_t> allocations{0};
  std::atomic<int64_t> bytes{0};
};
Slot g_slots[kSlots];  // constant-initialised: usable by allocations made before main
std::atomic<int> g_claimed{0};
thread_local Slot* t_slot = nullptr;

[[maybe_unused]] inline void count(std::size_t size) {
  Slot* slot = t_slot;
  if (!slot) {
    const int i = g_claimed.fetch_add(1, std::memory_order_relaxed);
    slot = &g_slots[std::min(i, kSlots - 1)];
    t_slot = slot;
  }
  slot->allocations.fetch_add(1, std::memory_order_relaxed);
  slot->bytes.fetch_add(int64_t(size), std::memory_order_relaxed);
}

}  // namespace

HeapCount heap_count() {
  HeapCount total;
  const int used = std::min(g_claimed.load(std::memory_order_relaxed), kSlots);
  for (int i = 0; i < used; ++i) {
    total.allocations += g_slots[i].allocations.load(std::memory_order_relaxed);
    total.bytes += g_slots[i].bytes.load(std::memory_order_relaxed);
  }
  return total;
}

#ifdef STRATA_SANITIZER_OWNS_NEW
bool heap_counting_enabled() {
  return false;
}
#else
bool heap_counting_enabled() {
  return true;
}
#endif

}  // namespace strata::profiler

#ifndef STRATA_SANITIZER_OWNS_NEW

// These pair malloc with free by design; GCC cannot see that once it inlines them, and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// The array and remaining nothrow forms are left to the standard library, whose defaults call
// the forms below.
void* operator new(std::size_t size) {
  strata::profiler::count(size);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  strata::profiler::count(size);
  return std::malloc(size == 0 ? 1 : size);
}

void* operator new(std::size_t size, std::align_val_t align) {
  strata::profiler::count(size);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t a = std::size_t(align);
  const std::size_t rounded = (std::max<std::size_t>(size, 1) + a - 1) / a * a;
  if (rounded >= size)
    if (void* p = std::aligned_alloc(a, rounded)) return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

#endif
