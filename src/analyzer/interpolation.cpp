#include "analyzer/interpolation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>

#include "core/error.h"

namespace strata::analyzer {

namespace {

// Sizes along each symbol's axis: distinct, above 1 (1 broadcasts differently), small enough for
// every figure to stay an exact integer in a double. The check point uses primes, so that a figure
// with floor divisions (strides) is unlikely to agree with the lattice's polynomial there.
constexpr int64_t kAxisSizes[] = {16, 24, 40, 64};
constexpr int64_t kCheckSizes[kMaxSymbols] = {101, 103, 107, 109};

__int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Exact rationals for the one-time construction of the fitting formulas (small numbers only).
struct Rational {
  __int128 num = 0, den = 1;
  Rational(__int128 n = 0, __int128 d = 1) : num(n), den(d) {  // NOLINT: integers convert
    if (den < 0) num = -num, den = -den;
    const __int128 g = gcd128(num, den);
    if (g > 1) num /= g, den /= g;
  }
  friend Rational operator+(const Rational& a, const Rational& b) {
    return {a.num * b.den + b.num * a.den, a.den * b.den};
  }
  friend Rational operator-(const Rational& a, const Rational& b) {
    return {a.num * b.den - b.num * a.den, a.den * b.den};
  }
  friend Rational operator*(const Rational& a, const Rational& b) {
    return {a.num * b.num, a.den * b.den};
  }
  friend Rational operator/(const Rational& a, const Rational& b) {
    return {a.num * b.den, a.den * b.num};
  }
};

// Multi-indices of total degree ≤ degree in k symbols, lowest total degree first: in this order
// the Newton basis matrix below is lower triangular, and lower degrees come first.
std::vector<Exponents> lower_set(size_t k, int degree) {
  std::vector<Exponents> out;
  Exponents e{};
  auto recurse = [&](auto&& self, size_t s, int left) -> void {
    if (s == k) {
      out.push_back(e);
      return;
    }
    for (int x = 0; x <= left; ++x) {
      e[s] = uint8_t(x);
      self(self, s + 1, left - x);
    }
    e[s] = 0;
  };
  recurse(recurse, 0, degree);
  std::stable_sort(out.begin(), out.end(), [](const Exponents& a, const Exponents& b) {
    return total_degree(a) < total_degree(b);
  });
  return out;
}

// Newton basis function of multi-index a at point x: prod over symbols of prod_{i<a_s}(x_s - X_i).
__int128 newton_basis(const Exponents& a, const std::vector<int64_t>& x, size_t k) {
  __int128 v = 1;
  for (size_t s = 0; s < k; ++s)
    for (int i = 0; i < a[s]; ++i) v *= x[s] - kAxisSizes[i];
  return v;
}

// Coefficients (by power of t) of prod_{i<j}(t - X_i).
std::vector<__int128> newton_1d(int j) {
  std::vector<__int128> c = {1};
  for (int i = 0; i < j; ++i) {
    std::vector<__int128> next(c.size() + 1, 0);
    for (size_t p = 0; p < c.size(); ++p) {
      next[p + 1] += c[p];
      next[p] -= c[p] * kAxisSizes[i];
    }
    c = std::move(next);
  }
  return c;
}

// Bounds that keep the exact fit's 128-bit sums of products from overflowing without checks:
// values below 2^53 (exact in a double) times numerators below 2^40, summed over at most 35 terms.
constexpr double kMaxExactValue = 0x1p53;
constexpr __int128 kMaxNumerator = __int128(1) << 40;

// v as an int64 when it is an integer small enough for exact 128-bit sums of products.
bool exact_integer(double v, int64_t* out) {
  if (!(std::fabs(v) < kMaxExactValue) || v != std::trunc(v)) return false;
  *out = int64_t(v);
  return true;
}

}  // namespace

const Interpolation& Interpolation::get(size_t num_symbols, int degree) {
  static std::mutex mutex;
  static std::unique_ptr<Interpolation> cache[kMaxSymbols + 1][kMaxDegree + 1];
  if (num_symbols == 0 || num_symbols > kMaxSymbols || degree < 1 || degree > kMaxDegree)
    fail_internal("interpolation in {} symbols of degree {}", num_symbols, degree);
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Interpolation>& slot = cache[num_symbols][degree];
  if (!slot) slot = std::make_unique<Interpolation>(num_symbols, degree);
  return *slot;
}

Interpolation::Interpolation(size_t num_symbols, int degree)
    : num_symbols_(num_symbols), degree_(degree) {
  if (num_symbols == 0 || num_symbols > kMaxSymbols || degree < 1 || degree > kMaxDegree)
    fail_internal("interpolation in {} symbols of degree {}", num_symbols, degree);
  const size_t k = num_symbols;
  basis_ = lower_set(k, degree);
  const size_t n = basis_.size();
  for (const Exponents& b : basis_) {
    std::vector<int64_t> p(k);
    for (size_t s = 0; s < k; ++s) p[s] = kAxisSizes[b[s]];
    lattice_.push_back(p);
  }
  check_point_.assign(kCheckSizes, kCheckSizes + k);

  // inverse[a][b]: Newton coefficient a of the interpolant, per unit of value b (M is lower
  // triangular: basis a vanishes at lattice points not above it componentwise).
  std::vector<std::vector<Rational>> inverse(n, std::vector<Rational>(n));
  for (size_t col = 0; col < n; ++col)
    for (size_t row = 0; row < n; ++row) {
      Rational sum = row == col ? 1 : 0;
      for (size_t a = 0; a < row; ++a)
        if (inverse[a][col].num != 0)
          sum = sum - Rational(newton_basis(basis_[a], lattice_[row], k)) * inverse[a][col];
      inverse[row][col] = sum / Rational(newton_basis(basis_[row], lattice_[row], k));
    }

  // Monomial g's coefficient in Newton basis function a.
  std::vector<std::vector<__int128>> to_monomial(n, std::vector<__int128>(n, 0));
  for (size_t a = 0; a < n; ++a)
    for (size_t g = 0; g < n; ++g) {
      __int128 c = 1;
      for (size_t s = 0; s < k && c != 0; ++s)
        c = basis_[g][s] > basis_[a][s] ? 0 : c * newton_1d(basis_[a][s])[basis_[g][s]];
      to_monomial[a][g] = c;
    }

  auto to_row = [n](const std::vector<Rational>& r) {
    Row row;
    for (const Rational& q : r)
      row.denominator = row.denominator / gcd128(row.denominator, q.den) * q.den;
    for (size_t b = 0; b < n; ++b)
      row.numerators.push_back(r[b].num * (row.denominator / r[b].den));
    return row;
  };
  for (size_t g = 0; g < n; ++g) {
    std::vector<Rational> r(n);
    for (size_t b = 0; b < n; ++b)
      for (size_t a = 0; a < n; ++a)
        if (to_monomial[a][g] != 0) r[b] = r[b] + Rational(to_monomial[a][g]) * inverse[a][b];
    coefficients_.push_back(to_row(r));
  }
  std::vector<Rational> check(n);
  for (size_t b = 0; b < n; ++b)
    for (size_t a = 0; a < n; ++a)
      check[b] = check[b] + Rational(newton_basis(basis_[a], check_point_, k)) * inverse[a][b];
  check_ = to_row(check);
  auto bounded = [](const Row& r) {
    for (__int128 n : r.numerators)
      if (n >= kMaxNumerator || n <= -kMaxNumerator) return false;
    return true;
  };
  exact_ = check_.denominator < kMaxNumerator && bounded(check_) &&
           std::all_of(coefficients_.begin(), coefficients_.end(), bounded);
  // 64-bit copies for the fast path (numerators and denominators below 2^40 when exact_).
  auto narrow = [&](Row& r) {
    for (__int128 n : r.numerators) {
      r.narrow.push_back(int64_t(n));
      largest_numerator_ = std::max(largest_numerator_, int64_t(n < 0 ? -n : n));
    }
    largest_numerator_ = std::max(largest_numerator_, int64_t(r.denominator));
    r.narrow_denominator = int64_t(r.denominator);
  };
  if (exact_) {
    narrow(check_);
    for (Row& r : coefficients_) narrow(r);
  }
}

Interpolation::Kind Interpolation::classify(std::span<const double> values, double check_value,
                                            int64_t* exact, int64_t* exact_check) const {
  // One pass without early exits (branches on the values mispredict): unknown values, and whether
  // the exact (integer) fit applies. (Constants are settled before: finite_constant.)
  bool integers = exact_integer(check_value, exact_check) && exact_;
  bool finite = std::isfinite(check_value);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    // (A conversion and back rather than std::trunc, a library call on baseline x86-64.)
    const bool in_range = std::fabs(v) < kMaxExactValue;
    const int64_t as_integer = in_range ? int64_t(v) : 0;
    finite &= std::isfinite(v);
    integers &= in_range && double(as_integer) == v;
    exact[i] = as_integer;
  }
  if (!finite) return Kind::kUnknown;
  return integers ? Kind::kExact : Kind::kApproximate;
}

bool Interpolation::finite_constant(std::span<const double> values, double check_value) const {
  if (values.size() != lattice_.size())
    fail_internal("interpolation needs {} values, got {}", lattice_.size(), values.size());
  if (!std::isfinite(check_value)) return false;
  for (double v : values)
    if (v != check_value) return false;
  return true;
}

std::optional<Polynomial> Interpolation::fit(std::span<const double> values,
                                             double check_value) const {
  if (finite_constant(values, check_value)) return Polynomial::constant(check_value);
  int64_t exact[kMaxLatticeSize];
  int64_t exact_check = 0;
  const Kind kind = classify(values, check_value, exact, &exact_check);
  switch (kind) {
    case Kind::kUnknown: return std::nullopt;
    case Kind::kExact: {
      std::optional<Polynomial> p = fit_exact({exact, values.size()}, exact_check);
      if (p) return p;
      break;
    }
    case Kind::kApproximate: break;
  }
  return fit_approximate(values, check_value);
}

namespace {
// sum_b numerators[b] * values[b]: cannot overflow 128 bits within the bounds above.
__int128 dot(const std::vector<__int128>& numerators, std::span<const int64_t> values) {
  __int128 sum = 0;
  for (size_t b = 0; b < numerators.size(); ++b) sum += numerators[b] * __int128(values[b]);
  return sum;
}

// The same in 64 bits, when the caller knows every product and the sum fit (the common case:
// small numerators, values far below 2^53); 128-bit arithmetic is several times slower.
int64_t dot64(const std::vector<int64_t>& numerators, std::span<const int64_t> values) {
  int64_t sum = 0;
  for (size_t b = 0; b < numerators.size(); ++b) sum += numerators[b] * values[b];
  return sum;
}

// num / den as a double: exact when it is an integer (in 64-bit arithmetic when both fit, which
// is nearly always: 128-bit division is a slow library call).
double ratio(__int128 num, __int128 den) {
  if (den == 1) return double(num);
  if (num >= INT64_MIN && num <= INT64_MAX && den <= INT64_MAX) {
    const int64_t n = int64_t(num), d = int64_t(den);
    return n % d == 0 ? double(n / d) : double(n) / double(d);
  }
  return num % den == 0 ? double(num / den) : double((long double)num / (long double)den);
}
}  // namespace

bool Interpolation::exact_check_passes(std::span<const int64_t> values, int64_t check,
                                       bool* narrow) const {
  uint64_t largest = uint64_t(check < 0 ? -check : check);
  for (int64_t v : values) largest = std::max(largest, uint64_t(v < 0 ? -v : v));
  // Every product and sum in 64 bits: |numerator| · |value| · (terms + 1) < 2^62.
  *narrow =
      largest < (uint64_t(1) << 62) / (uint64_t(largest_numerator_) * uint64_t(values.size() + 1));
  return *narrow ? dot64(check_.narrow, values) == check_.narrow_denominator * check
                 : dot(check_.numerators, values) == check_.denominator * __int128(check);
}

std::optional<Polynomial> Interpolation::fit_exact(std::span<const int64_t> values,
                                                   int64_t check) const {
  bool narrow = false;
  if (!exact_check_passes(values, check, &narrow))
    return std::nullopt;  // not a polynomial of this degree
  // Highest degree first, as Polynomial keeps its terms. The storage is left uninitialised:
  // zeroing room for 35 terms on every fit would cost more than the fit itself.
  union Slots {
    Slots() {}
    Polynomial::Term terms[kMaxLatticeSize];
  } slots;
  size_t count = 0;
  for (size_t g = basis_.size(); g-- > 0;) {
    const Row& row = coefficients_[g];
    const __int128 num = narrow ? __int128(dot64(row.narrow, values)) : dot(row.numerators, values);
    if (num != 0)
      new (&slots.terms[count++]) Polynomial::Term{ratio(num, row.denominator), basis_[g]};
  }
  return Polynomial(std::span<const Polynomial::Term>(slots.terms, count));
}

bool Interpolation::approximate_check_passes(std::span<const double> values, double check) const {
  long double scale = std::fabs(check);
  for (double v : values) scale = std::max(scale, (long double)std::fabs(v));
  long double at_check = 0;
  for (size_t b = 0; b < values.size(); ++b)
    at_check += (long double)check_.numerators[b] / (long double)check_.denominator * values[b];
  return !(std::fabs(at_check - check) > 1e-9L * scale);
}

std::optional<Polynomial> Interpolation::fit_approximate(std::span<const double> values,
                                                         double check) const {
  const size_t n = values.size();
  long double scale = std::fabs(check);
  for (double v : values) scale = std::max(scale, (long double)std::fabs(v));
  if (!approximate_check_passes(values, check)) return std::nullopt;
  std::vector<Polynomial::Term> terms;
  for (size_t g = 0; g < basis_.size(); ++g) {
    long double c = 0;
    for (size_t b = 0; b < n; ++b)
      c += (long double)coefficients_[g].numerators[b] / (long double)coefficients_[g].denominator *
           values[b];
    // Rounding noise: a term worth less than 1e-12 of the largest value on the lattice is zero.
    const long double reach = std::pow(64.0L, total_degree(basis_[g]));
    if (std::fabs(c) * reach > 1e-12L * scale) terms.push_back({double(c), basis_[g]});
  }
  return Polynomial(terms);
}

}  // namespace strata::analyzer
