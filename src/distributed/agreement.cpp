#include "agreement.hpp"

#include <exception>

#include "../stopwatch.hpp"
#include "pscr/errors.hpp"

namespace pscr::distributed {

bool any(Communicator& c, bool flag) {
  double v = flag ? 1 : 0;
  c.max(&v, 1);
  return v > 0;
}

bool same_everywhere(Communicator& c, std::uint64_t value, double& waited) {
  // in 16-bit parts, which doubles hold exactly: the maximum and the
  // maximum of the negation agree only where every rank has the same
  double parts[8];
  for (int p = 0; p < 4; ++p) {
    parts[p] = double((value >> (16 * p)) & 0xffff);
    parts[4 + p] = -parts[p];
  }
  const auto t = clock_type::now();
  c.max(parts, 8);
  waited += seconds_since(t);
  for (int p = 0; p < 4; ++p)
    if (parts[p] != -parts[4 + p]) return false;
  return true;
}

void on_every_rank(Communicator& c, const std::string& what, bool as_backend_error,
                   const std::function<void()>& step, double& waited) {
  // what failed, the most telling kind over the ranks winning: every rank
  // throws the same class
  enum : int { none = 0, other = 1, invalid = 2, too_large = 3 };
  std::exception_ptr failed;
  std::string message;
  int mine = none;
  try {
    step();
  } catch (const AllocationTooLarge& e) {
    failed = std::current_exception();
    message = e.what();
    mine = too_large;
  } catch (const InvalidArgument& e) {
    failed = std::current_exception();
    message = e.what();
    mine = invalid;
  } catch (const Error& e) {
    failed = std::current_exception();
    message = e.what();
    mine = other;
  }
  double kind = mine;
  const auto t = clock_type::now();
  c.max(&kind, 1);
  waited += seconds_since(t);
  if (kind == none) return;
  const std::string here = "DistributedPlan: rank " + std::to_string(c.rank()) + ": " + message;
  const std::string elsewhere = "DistributedPlan: " + what + " failed on another rank";
  if (kind == too_large) throw AllocationTooLarge(mine == too_large ? here : elsewhere + ": too large for its device");
  if (kind == invalid) throw InvalidArgument(mine == invalid ? here : elsewhere);
  if (!failed) throw BackendError(elsewhere);
  if (as_backend_error) throw BackendError(here);
  std::rethrow_exception(failed);
}

}  // namespace pscr::distributed
