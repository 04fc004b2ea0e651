#include "pscr/problem.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "kron.hpp"
#include "pscr/errors.hpp"
#include "size_product.hpp"

namespace pscr {
namespace {

template <class T> void check_tridiagonal(const Tridiagonal<T>& t, const std::string& name) {
  if (t.diag.empty()) throw InvalidArgument(name + ": size n = 0 (every dimension needs n >= 1)");
  if (t.off.size() + 1 != t.diag.size() && !t.periodic()) {
    std::ostringstream os;
    os << name << ": off-diagonal has " << t.off.size() << " entries, expected n-1 = " << t.diag.size() - 1
       << " (or n = " << t.diag.size() << " for a periodic dimension)";
    throw SizeMismatch(os.str());
  }
  if (t.periodic() && t.size() < 3)
    throw InvalidArgument(name + ": a periodic dimension of size n = " + std::to_string(t.size()) +
                          " (its corner entries would fall on the diagonal or the off-diagonal; needs n >= 3)");
  for (std::size_t i = 0; i < t.diag.size(); ++i)
    if (!is_finite(t.diag[i])) throw NonFiniteInput(name + ": non-finite diagonal entry at " + std::to_string(i));
  for (std::size_t i = 0; i < t.off.size(); ++i)
    if (!is_finite(t.off[i])) throw NonFiniteInput(name + ": non-finite off-diagonal entry at " + std::to_string(i));
}

template <class T> double abs_of(const T& x) { return std::abs(x); }

}  // namespace

template <class T>
Problem<T>::Problem(std::vector<Factor<T>> factors, T c) : factors_(std::move(factors)), c_(c) {
  if (factors_.size() < 2 || factors_.size() > 3)
    throw InvalidArgument("a problem has 2 or 3 dimensions, got " + std::to_string(factors_.size()));
  for (std::size_t d = 0; d < factors_.size(); ++d) {
    const std::string idx = std::to_string(d + 1);
    check_tridiagonal(factors_[d].A, "A" + idx);
    check_tridiagonal(factors_[d].M, "M" + idx);
    if (factors_[d].A.size() != factors_[d].M.size())
      throw SizeMismatch("A" + idx + " has size " + std::to_string(factors_[d].A.size()) + " but M" + idx +
                         " has size " + std::to_string(factors_[d].M.size()));
    Factor<T>& f = factors_[d];
    if (f.M.periodic() && !f.A.periodic())
      throw InvalidArgument("M" + idx + " is periodic (n off-diagonal entries) but A" + idx +
                            " is not: a periodic dimension gives A its corner entry (and M one, or none)");
    // a periodic A with a non-cyclic M: M's corner entry is 0 (a lumped mass)
    if (f.A.periodic() && !f.M.periodic()) f.M.off.push_back(T(0));
  }
  if (!is_finite(c_)) throw NonFiniteInput("the shift c is not finite");
  // one right-hand side's bytes fit size_t, so unknowns() and the array sizes of one solve cannot wrap
  size_product({size(0), size(1), dims() == 3 ? size(2) : 1, sizeof(T)},
               "problem: n1 × n2 × n3 unknowns × bytes per scalar");
}

template <class T> std::size_t Problem<T>::unknowns() const {
  std::size_t n = 1;
  for (auto& f : factors_) n *= f.size();
  return n;
}

template <class T> void Problem<T>::apply(const T* x, T* y) const {
  // A = A1⊗R + M1⊗(A_R + c·M_R) where R are the remaining dimensions.
  const std::size_t n1 = factors_[0].size();
  const std::size_t rest = unknowns() / n1;
  std::vector<T> t1(rest), t2(rest), a(unknowns()), m(unknowns());
  // a = (I⊗M_R) x  and  m = (I⊗(A_R + c M_R)) x, row block by row block.
  for (std::size_t j = 0; j < n1; ++j) {
    detail::apply_rest(&factors_[1], dims() - 1, T(1), T(0), x + j * rest, &a[j * rest], t1.data(), false);
    detail::apply_rest(&factors_[1], dims() - 1, c_, T(1), x + j * rest, &m[j * rest], t1.data(), false);
  }
  detail::apply_axis(detail::Plain<T>{&factors_[0].A, T(1)}, a.data(), y, 1, n1, rest, false);
  detail::apply_axis(detail::Plain<T>{&factors_[0].M, T(1)}, m.data(), y, 1, n1, rest, true);
}

template <class T> double Problem<T>::norm_inf() const {
  // ‖X⊗Y‖∞ = ‖X‖∞‖Y‖∞, so the sum over the Kronecker terms bounds ‖A‖∞ from
  // above and equals it when the terms' signs agree (as for Poisson).
  auto rownorm = [](const Tridiagonal<T>& t) {
    double best = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      double s = abs_of(t.diag[i]);
      if (i > 0) s += abs_of(t.off[i - 1]);
      if (i + 1 < t.size()) s += abs_of(t.off[i]);
      if (t.periodic() && (i == 0 || i + 1 == t.size())) s += abs_of(t.off.back());
      best = std::max(best, s);
    }
    return best;
  };
  double total = 0, mprod = 1;
  for (auto& f : factors_) mprod *= rownorm(f.M);
  for (std::size_t d = 0; d < factors_.size(); ++d) {
    double term = 1;
    for (std::size_t e = 0; e < factors_.size(); ++e) term *= (e == d) ? rownorm(factors_[e].A) : rownorm(factors_[e].M);
    total += term;
  }
  return total + abs_of(c_) * mprod;
}

template <class T> double Problem<T>::backward_error(const T* f, const T* u) const {
  const std::size_t n = unknowns();
  std::vector<T> r(n);
  apply(u, r.data());
  double rn = 0, un = 0, fn = 0;
  for (std::size_t i = 0; i < n; ++i) {
    rn = std::max(rn, abs_of(T(f[i] - r[i])));
    un = std::max(un, abs_of(u[i]));
    fn = std::max(fn, abs_of(f[i]));
  }
  const double den = norm_inf() * un + fn;
  return den > 0 ? rn / den : rn;
}

template <class T> double Problem<T>::relative_residual(const T* f, const T* u) const {
  const std::size_t n = unknowns();
  std::vector<T> r(n);
  apply(u, r.data());
  double rn = 0, fn = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = abs_of(T(f[i] - r[i])), b = abs_of(f[i]);
    rn += a * a;
    fn += b * b;
  }
  return fn > 0 ? std::sqrt(rn / fn) : std::sqrt(rn);
}

template class Problem<float>;
template class Problem<double>;
template class Problem<std::complex<float>>;
template class Problem<std::complex<double>>;

}  // namespace pscr
