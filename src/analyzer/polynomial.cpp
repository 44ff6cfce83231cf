#include "analyzer/polynomial.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace strata::analyzer {

namespace {

// Higher total degree first, then by exponents (first symbol's highest first).
bool term_before(const Polynomial::Term& a, const Polynomial::Term& b) {
  const int da = total_degree(a.exponents), db = total_degree(b.exponents);
  if (da != db) return da > db;
  return a.exponents > b.exponents;
}

std::string power(const std::string& name, int exponent) {
  if (exponent == 1) return name;
  if (exponent == 2) return name + "²";
  if (exponent == 3) return name + "³";
  return fmt::format("{}^{}", name, exponent);
}

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

Polynomial Polynomial::constant(double value) {
  Polynomial p;
  if (value != 0) {
    p.inline_[0] = Term{value, {}};
    p.size_ = 1;
  }
  return p;
}

Polynomial Polynomial::symbol(size_t index) {
  Polynomial p;
  p.inline_[0] = Term{1, {}};
  p.inline_[0].exponents[index] = 1;
  p.size_ = 1;
  return p;
}

Polynomial::Polynomial(std::span<const Term> terms) {
  assign(terms);
}

void Polynomial::assign(std::span<const Term> terms) {
  copy(terms);
  normalize();
}

void Polynomial::copy(std::span<const Term> terms) {
  if (terms.size() <= kInlineTerms) {
    std::copy(terms.begin(), terms.end(), inline_.begin());
    heap_.reset();
  } else {
    std::unique_ptr<Term[]> heap(new Term[terms.size()]);
    std::copy(terms.begin(), terms.end(), heap.get());
    heap_ = std::move(heap);
  }
  size_ = uint32_t(terms.size());
}

void Polynomial::normalize() {
  Term* t = data();
  // Fitted polynomials arrive in order, without like or zero terms: nothing to do then.
  bool normal = true;
  for (uint32_t i = 0; i < size_ && normal; ++i)
    normal = t[i].coefficient != 0 && (i == 0 || term_before(t[i - 1], t[i]));
  if (normal) return;
  std::sort(t, t + size_, term_before);
  uint32_t out = 0;
  for (uint32_t i = 0; i < size_; ++i) {
    if (out > 0 && t[out - 1].exponents == t[i].exponents)
      t[out - 1].coefficient += t[i].coefficient;
    else
      t[out++] = t[i];
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < out; ++i)
    if (t[i].coefficient != 0) t[kept++] = t[i];
  size_ = kept;
  if (heap_ && kept <= kInlineTerms) {
    std::copy(heap_.get(), heap_.get() + kept, inline_.begin());
    heap_.reset();
  }
}

bool Polynomial::is_constant() const {
  return size_ == 0 || (size_ == 1 && total_degree(data()[0].exponents) == 0);
}

double Polynomial::constant_term() const {
  return size_ > 0 && total_degree(data()[size_ - 1].exponents) == 0 ? data()[size_ - 1].coefficient
                                                                     : 0;
}

int Polynomial::degree() const {
  return size_ == 0 ? 0 : total_degree(data()[0].exponents);
}

double Polynomial::evaluate(std::span<const double> values) const {
  double sum = 0;
  for (const Term& t : terms()) {
    double v = t.coefficient;
    for (size_t s = 0; s < kMaxSymbols; ++s)
      for (int k = 0; k < t.exponents[s]; ++k) v *= values[s];
    sum += v;
  }
  return sum;
}

Polynomial& Polynomial::operator+=(const Polynomial& other) {
  std::vector<Term> all(terms().begin(), terms().end());
  all.insert(all.end(), other.terms().begin(), other.terms().end());
  assign(all);
  return *this;
}

Polynomial operator*(double scale, const Polynomial& p) {
  std::vector<Polynomial::Term> terms(p.terms().begin(), p.terms().end());
  for (Polynomial::Term& t : terms) t.coefficient *= scale;
  return Polynomial(terms);
}

bool operator==(const Polynomial& a, const Polynomial& b) {
  if (a.size_ != b.size_) return false;
  for (uint32_t i = 0; i < a.size_; ++i)
    if (a.data()[i].coefficient != b.data()[i].coefficient ||
        a.data()[i].exponents != b.data()[i].exponents)
      return false;
  return true;
}

std::string Polynomial::str(const std::vector<std::string>& symbols,
                            const std::function<std::string(double)>& coefficient) const {
  if (size_ == 0) return coefficient ? coefficient(0) : "0";
  std::string out;
  for (size_t i = 0; i < size_; ++i) {
    const Term& t = data()[i];
    const bool negative = t.coefficient < 0;
    if (i == 0)
      out += negative ? "-" : "";
    else
      out += negative ? " - " : " + ";
    const double magnitude = std::fabs(t.coefficient);
    std::string monomial;
    for (size_t s = 0; s < kMaxSymbols; ++s) {
      if (t.exponents[s] == 0) continue;
      if (!monomial.empty()) monomial += "·";
      monomial += power(s < symbols.size() ? symbols[s] : fmt::format("x{}", s), t.exponents[s]);
    }
    const std::string c = coefficient ? coefficient(magnitude) : format_count(magnitude);
    if (monomial.empty())
      out += c;
    else if (magnitude == 1)
      out += monomial;
    else
      out += c + "·" + monomial;
  }
  return out;
}

std::string format_count(double value) {
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude < 1e4) {
    if (value == std::round(value)) return fmt::format("{:.0f}", value);
    return trim_zeros(fmt::format("{:.3g}", value));
  }
  int exponent = int(std::floor(std::log10(magnitude)));
  double mantissa = value / std::pow(10.0, exponent);
  if (std::fabs(std::round(mantissa * 100) / 100) >= 10) {  // 9.996e9 rounds to 1e10
    mantissa /= 10;
    ++exponent;
  }
  return fmt::format("{}e{}", trim_zeros(fmt::format("{:.2f}", mantissa)), exponent);
}

std::string format_exact(double value) {
  if (value == std::round(value) && std::fabs(value) < 1e15) return fmt::format("{:.0f}", value);
  return format_count(value);
}

}  // namespace strata::analyzer
