// Dimensions that may be symbolic, and shapes made of them (for meta tensors).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace strata {

// A dimension: a known size, or a symbolic expression ("N", "(N*3)") not known before inputs are
// bound. Arithmetic on symbolic dims builds an expression; value() of a symbolic dim throws
// NotStatic.
class Dim {
 public:
  Dim() = default;
  Dim(int64_t value) : value_(value) {}  // NOLINT: sizes convert implicitly
  static Dim symbol(std::string name);
  static Dim unknown();  // a fresh anonymous dim ("?")

  bool is_static() const { return symbol_.empty(); }
  int64_t value() const;  // throws NotStatic if symbolic
  const std::string& symbol() const { return symbol_; }
  std::string str() const;

  friend bool operator==(const Dim& a, const Dim& b);
  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  friend Dim floor_div(const Dim& a, const Dim& b);
  friend Dim ceil_div(const Dim& a, const Dim& b);

 private:
  int64_t value_ = 0;
  std::string symbol_;
};

// A shape of Dims. Its rank is always known (rules that cannot know it throw NotStatic).
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<Dim> dims) : dims_(dims) {}
  explicit Shape(std::vector<Dim> dims) : dims_(std::move(dims)) {}
  static Shape of(const std::vector<int64_t>& dims);

  int64_t rank() const { return int64_t(dims_.size()); }
  const Dim& operator[](int64_t i) const { return dims_[size_t(i)]; }
  Dim& operator[](int64_t i) { return dims_[size_t(i)]; }
  const std::vector<Dim>& dims() const { return dims_; }
  std::vector<Dim>& dims() { return dims_; }
  void push_back(Dim d) { dims_.push_back(std::move(d)); }

  bool is_static() const;
  std::vector<int64_t> values() const;  // throws NotStatic if any dim is symbolic
  Dim numel() const;
  std::string str() const;  // "[1,3,224,224]"

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }

 private:
  std::vector<Dim> dims_;
};

// Normalises a possibly negative axis against rank; fails naming `what` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* what = "axis");

// Numpy-style multidirectional broadcast of two shapes; fails when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace strata
