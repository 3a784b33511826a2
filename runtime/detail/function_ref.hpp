// A non-owning reference to a callable, for callbacks that cross a virtual call or the
// compiled library once per question and are called many times (no allocation, one
// indirect call per use).
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace dmap::detail {

template <class Signature>
class function_ref;

/// A reference to a callable `R(Args...)` that the caller keeps alive for as long as the
/// reference is used (a lambda passed straight to a parameter lives through the call).
template <class R, class... Args>
class function_ref<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, Args...>)
  function_ref(F&& f) noexcept  // NOLINT: implicit, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... args) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(o), std::forward<Args>(args)...);
        }) {}
  /// Calls the callable.
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace dmap::detail
