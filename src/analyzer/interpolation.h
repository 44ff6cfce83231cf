// Recovering a figure's formula from its values at a few sizes. Cost rules work on concrete shapes,
// so the analyzer evaluates the whole graph at the points of a lattice in the symbols' sizes and
// fits, per figure, the polynomial of total degree ≤ d through them; one more evaluation, at a
// point off the lattice, checks that the figure really is that polynomial (floor divisions from
// strides on a symbolic height, for instance, are not). The lattice of degree d is a prefix of the
// lattice of degree d + 1, so the degree can be raised one step at a time, reusing evaluations.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "analyzer/polynomial.h"

namespace strata::analyzer {

inline constexpr int kMaxDegree = 3;
inline constexpr size_t kMaxLatticeSize = 35;  // C(kMaxSymbols + kMaxDegree, kMaxDegree)

class Interpolation {
 public:
  // num_symbols in 1..kMaxSymbols, degree in 1..kMaxDegree.
  Interpolation(size_t num_symbols, int degree);
  // One per (num_symbols, degree), built on first use (the set-up uses exact rationals).
  static const Interpolation& get(size_t num_symbols, int degree);

  size_t num_symbols() const { return num_symbols_; }
  int degree() const { return degree_; }
  // C(k + d, d) points; the lattice of a lower degree is a prefix of this one.
  const std::vector<std::vector<int64_t>>& lattice() const { return lattice_; }
  // The same for every degree.
  const std::vector<int64_t>& check_point() const { return check_point_; }

  // The polynomial through lattice_values[i] at lattice()[i], if it also gives check_value at the
  // check point; nullopt otherwise (or when a value is not finite). Integer values (all figures
  // are counts) are fitted and checked exactly.
  std::optional<Polynomial> fit(std::span<const double> lattice_values, double check_value) const;
  // Every value the same and finite: the fit is that constant. Most figures do not change with
  // the sizes, and a comparison per value settles them without the work of a fit.
  bool finite_constant(std::span<const double> lattice_values, double check_value) const;

 private:
  struct Row {  // one linear form over the lattice values, over a common denominator
    std::vector<__int128> numerators;
    __int128 denominator = 1;
    std::vector<int64_t> narrow;  // the same in 64 bits (when exact_)
    int64_t narrow_denominator = 1;
  };
  // How fit() goes about a figure that is not a constant: unknown values, exact integers, or
  // approximately.
  enum class Kind { kUnknown, kExact, kApproximate };
  Kind classify(std::span<const double> values, double check, int64_t* exact,
                int64_t* exact_check) const;
  bool exact_check_passes(std::span<const int64_t> values, int64_t check, bool* narrow) const;
  bool approximate_check_passes(std::span<const double> values, double check) const;
  std::optional<Polynomial> fit_exact(std::span<const int64_t> values, int64_t check) const;
  std::optional<Polynomial> fit_approximate(std::span<const double> values, double check) const;

  size_t num_symbols_;
  int degree_;
  std::vector<Exponents> basis_;  // multi-indices of total degree ≤ degree_
  std::vector<std::vector<int64_t>> lattice_;
  std::vector<int64_t> check_point_;
  std::vector<Row> coefficients_;  // monomial coefficient of basis_[j] from the values
  Row check_;                      // the interpolant's value at the check point
  bool exact_ = true;  // numerators small enough for the exact fit (always, for these lattices)
  int64_t largest_numerator_ = 1;  // over every row, denominators included
};

}  // namespace strata::analyzer
