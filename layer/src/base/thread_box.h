// A per-thread object kept on the heap: made on the thread's first use, freed when it exits.
//
// Why not a plain thread_local object: the layer is dlopen'ed and reads some thread-locals with
// the initial-exec model (one %fs-relative load on the hot path), which makes glibc place the
// layer's whole TLS block in the small static TLS reserve that every dlopen'ed library using
// initial-exec TLS shares. With 1.3 KB of caches in it, NVIDIA's libnvidia-tls.so could no
// longer be loaded when the loader reloaded the driver for a new instance ("cannot allocate
// memory in static TLS block", vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER). A box takes a
// pointer, a flag and an owner of TLS whatever the size of T (tests/layer/check_static_tls.py).
//
// One box per type T: use a type of the using file's own (an anonymous-namespace struct).
#pragma once

#include <new>

namespace vkleak {

template <typename T>
class ThreadBox {
 public:
  // This thread's object, or nullptr (out of memory, or the thread is exiting): callers then go
  // without their cache. One initial-exec load when it exists.
  static T* get() noexcept {
    if (T* p = object_) return p;
    return make();
  }

 private:
  struct Owner {
    T* object = nullptr;
    ~Owner() {
      delete object;
      object_ = nullptr;
      gone_ = true;  // a hook called later in this thread's exit gets nullptr, not a new one
    }
  };
  static T* make() noexcept {
    if (gone_) return nullptr;
    T* p = new (std::nothrow) T();
    if (!p) return nullptr;
    owner_.object = p;  // the first touch of the owner registers its destructor
    object_ = p;
    return p;
  }
  static __thread T* object_ __attribute__((tls_model("initial-exec")));
  static __thread bool gone_ __attribute__((tls_model("initial-exec")));
  static thread_local Owner owner_;
};

template <typename T>
__thread T* ThreadBox<T>::object_ __attribute__((tls_model("initial-exec"))) = nullptr;
template <typename T>
__thread bool ThreadBox<T>::gone_ __attribute__((tls_model("initial-exec"))) = false;
template <typename T>
thread_local typename ThreadBox<T>::Owner ThreadBox<T>::owner_;

}  // namespace vkleak
