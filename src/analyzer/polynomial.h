// Polynomials in named symbols: how a static figure (FLOPs, bytes, a dimension) grows with the
// model's symbolic dims, printed as a formula ("8.18e9·N + 1.2e6") and evaluated for given sizes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace strata::analyzer {

// Formulas take at most this many symbols (each figure is fitted from C(k+3, 3) + 1 evaluations).
inline constexpr size_t kMaxSymbols = 4;

// A monomial's exponent of each symbol, by symbol index.
using Exponents = std::array<uint8_t, kMaxSymbols>;

// A monomial's total degree: the sum of its exponents.
inline int total_degree(const Exponents& e) {
  int d = 0;
  for (uint8_t x : e) d += x;
  return d;
}

class Polynomial {
 public:
  struct Term {
    double coefficient = 0;
    Exponents exponents{};
  };

  Polynomial() = default;  // zero
  Polynomial(const Polynomial& other) { copy(other.terms()); }
  Polynomial(Polynomial&& other) noexcept { *this = std::move(other); }
  Polynomial& operator=(const Polynomial& other) {
    if (this != &other) copy(other.terms());
    return *this;
  }
  Polynomial& operator=(Polynomial&& other) noexcept {
    inline_ = other.inline_;
    heap_ = std::move(other.heap_);
    size_ = other.size_;
    other.size_ = 0;  // a moved-from polynomial is zero
    return *this;
  }
  static Polynomial constant(double value);
  static Polynomial symbol(size_t index);  // the symbol itself: 1·x_index
  // Terms in any order; like terms are merged and zero terms dropped.
  explicit Polynomial(std::span<const Term> terms);
  explicit Polynomial(std::initializer_list<Term> terms)
      : Polynomial(std::span<const Term>(terms.begin(), terms.size())) {}

  // Terms with non-zero coefficients, highest total degree first.
  std::span<const Term> terms() const { return {data(), size_}; }
  bool is_zero() const { return size_ == 0; }
  bool is_constant() const;
  double constant_term() const;
  int degree() const;  // total degree; 0 for constants and zero

  // Value with symbol i set to values[i] (values.size() must cover every symbol used).
  double evaluate(std::span<const double> values) const;

  Polynomial& operator+=(const Polynomial& other);
  friend Polynomial operator+(Polynomial a, const Polynomial& b) { return a += b; }
  friend Polynomial operator*(double scale, const Polynomial& p);
  friend bool operator==(const Polynomial& a, const Polynomial& b);

  // "8.18e9·N + 1.2e6": coefficients printed by `coefficient` (default: format_count), symbol i
  // named symbols[i], exponents as ² and ³ (^k beyond).
  std::string str(const std::vector<std::string>& symbols,
                  const std::function<std::string(double)>& coefficient = {}) const;

 private:
  // Most figures have one or two terms (c·N + d): up to kInlineTerms are kept without allocating,
  // and the object stays small (an analysis holds tens of thousands of these).
  static constexpr size_t kInlineTerms = 2;
  const Term* data() const { return heap_ ? heap_.get() : inline_.data(); }
  Term* data() { return heap_ ? heap_.get() : inline_.data(); }
  void assign(std::span<const Term> terms);  // copy, then normalize
  void copy(std::span<const Term> terms);    // terms already in order (another polynomial's)
  void normalize();
  std::array<Term, kInlineTerms> inline_{};
  std::unique_ptr<Term[]> heap_;  // the terms, when there are more than kInlineTerms
  uint32_t size_ = 0;
};

// Three significant digits, exponent notation from 10^4 on: 8.18e9, 1.2e6, 768, 0.5.
std::string format_count(double value);
// Integers exactly (12, 768); other values as format_count. For dimensions.
std::string format_exact(double value);

}  // namespace strata::analyzer
