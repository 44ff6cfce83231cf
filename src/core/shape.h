// Dimensions that may be symbolic, and shapes made of them (for meta tensors).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// A dimension: a known size, or a symbolic expression ("N", "(N*3)") not known before inputs are
// bound. Arithmetic on symbolic dims builds an expression; value() of a symbolic dim throws
// NotStatic. A Dim is two words and copying it never allocates: symbol names are interned (equal
// names share one string, kept for the life of the process), so shape rules copy dims freely.
class Dim {
 public:
  Dim() = default;
  Dim(int64_t value) : value_(value) {}      // NOLINT: sizes convert implicitly
  static Dim symbol(std::string_view name);  // an empty name gives the static dim 0
  static Dim unknown();                      // a fresh anonymous dim ("?")

  bool is_static() const { return symbol_ == nullptr; }
  int64_t value() const {  // throws NotStatic if symbolic
    if (symbol_) throw_not_static();
    return value_;
  }
  const std::string& symbol() const;  // empty when static
  std::string str() const;

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.symbol_ == b.symbol_ && (a.symbol_ != nullptr || a.value_ == b.value_);
  }
  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  friend Dim floor_div(const Dim& a, const Dim& b);
  friend Dim ceil_div(const Dim& a, const Dim& b);

 private:
  [[noreturn]] static void throw_not_static();

  int64_t value_ = 0;                    // 0 when symbolic
  const std::string* symbol_ = nullptr;  // interned name; nullptr when static
};

// A shape of Dims. Its rank is always known (rules that cannot know it throw NotStatic). Shapes of
// rank up to kInlineRank are stored inline: copying one does not allocate.
class Shape {
 public:
  static constexpr size_t kInlineRank = 6;

  Shape() = default;
  Shape(std::initializer_list<Dim> dims) { assign(dims.begin(), dims.size()); }
  explicit Shape(std::span<const Dim> dims) { assign(dims.data(), dims.size()); }
  Shape(const Shape& other) { assign(other.data(), other.size_); }
  Shape(Shape&& other) noexcept { take(other); }
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.data(), other.size_);
    return *this;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      delete[] heap_;
      heap_ = nullptr;
      take(other);
    }
    return *this;
  }
  ~Shape() { delete[] heap_; }
  static Shape of(std::span<const int64_t> dims);
  static Shape of(std::initializer_list<int64_t> dims) { return of({dims.begin(), dims.size()}); }

  int64_t rank() const { return int64_t(size_); }
  const Dim& operator[](int64_t i) const { return data()[i]; }
  Dim& operator[](int64_t i) { return data()[i]; }
  std::span<const Dim> dims() const { return {data(), size_}; }
  std::span<Dim> dims() { return {data(), size_}; }
  const Dim* begin() const { return data(); }
  const Dim* end() const { return data() + size_; }
  void reserve(size_t rank);
  void push_back(Dim d) {
    if (size_ == capacity_) reserve(size_t(capacity_) * 2);
    data()[size_++] = d;
  }
  void insert(size_t index, Dim d);  // before dims()[index]

  bool is_static() const;
  std::vector<int64_t> values() const;  // throws NotStatic if any dim is symbolic
  Dim numel() const;
  std::string str() const;  // "[1,3,224,224]"

  friend bool operator==(const Shape& a, const Shape& b);

 private:
  const Dim* data() const { return heap_ ? heap_ : inline_; }
  Dim* data() { return heap_ ? heap_ : inline_; }
  void assign(const Dim* dims, size_t rank);
  void take(Shape& other);  // other's dims; other is left empty

  Dim inline_[kInlineRank];
  Dim* heap_ = nullptr;  // the dims, when the rank has exceeded kInlineRank
  uint32_t size_ = 0;
  uint32_t capacity_ = kInlineRank;
};

// Normalises a possibly negative axis against rank; fails naming `what` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* what = "axis");

// Numpy-style multidirectional broadcast of two shapes; fails when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace strata
