#include "row_exchange.hpp"

#include <complex>
#include <stdexcept>
#include <string>

#include "cl_check.hpp"

namespace pscr::ocl {
namespace {

// gather_rows / scatter_rows: an offset with this bit set is in the sums
constexpr cl_ulong kRowInSums = cl_ulong(1) << 63;

void wait(Event& e, const char* what) {
  if (!e) return;
  const cl_event ev = e.get();
  check(clWaitForEvents(1, &ev), what);
  e.reset();
}

}  // namespace

template <class T> const T* RowExchange<T>::gather(const std::vector<distributed::DeviceRow>& rows) {
  wait_gathered();
  if (rows.empty()) return nullptr;
  const std::size_t bytes = area(rows.size(), gathered_, "page-locked rows gathered");
  offsets(rows, gather_offsets_, b_.exchange_offsets[0].get());
  launch("gather_rows", rows.size(), b_.exchange_offsets[0].get());
  cl_event e = nullptr;
  check(clEnqueueReadBuffer(rt_.queue(), b_.exchange.get(), CL_FALSE, 0, bytes, gathered_.data(), 0, nullptr, &e),
        "clEnqueueReadBuffer (rows gathered for an exchange)");
  gathering_.reset(e);
  clFlush(rt_.queue());
  return static_cast<const T*>(gathered_.data());
}

template <class T> void RowExchange<T>::wait_gathered() {
  wait(gathering_, "clWaitForEvents (rows gathered for an exchange)");
}

template <class T> T* RowExchange<T>::scatter_area(std::size_t count) {
  wait(scattered_, "clWaitForEvents (rows scattered)");  // the previous scatter's copy may still read the area
  if (count == 0) return nullptr;
  area(count, scattering_, "page-locked rows to scatter");
  return static_cast<T*>(scattering_.data());
}

template <class T> void RowExchange<T>::scatter(const std::vector<distributed::DeviceRow>& rows) {
  if (rows.empty()) return;
  const std::size_t bytes = area(rows.size(), scattering_, "page-locked rows to scatter");
  offsets(rows, scatter_offsets_, b_.exchange_offsets[1].get());
  cl_event e = nullptr;
  check(clEnqueueWriteBuffer(rt_.queue(), b_.exchange.get(), CL_FALSE, 0, bytes, scattering_.data(), 0, nullptr, &e),
        "clEnqueueWriteBuffer (rows of an exchange)");
  scattered_.reset(e);
  launch("scatter_rows", rows.size(), b_.exchange_offsets[1].get());
  clFlush(rt_.queue());
}

template <class T> std::size_t RowExchange<T>::area(std::size_t rows, PinnedHost& host, const char* what) {
  if (rows > b_.exchange_rows)
    throw std::logic_error("distributed plan: an exchange of " + std::to_string(rows) + " rows, planned for " +
                           std::to_string(b_.exchange_rows));
  const std::size_t row_bytes = b_.dims[0].R * sizeof(T);
  if (!host.data()) host = PinnedHost(rt_.context(), rt_.queue(), b_.exchange_rows * row_bytes, what);
  return rows * row_bytes;
}

template <class T>
void RowExchange<T>::offsets(const std::vector<distributed::DeviceRow>& rows, std::vector<cl_ulong>& host,
                             cl_mem dst) const {
  const std::size_t R = b_.dims[0].R;
  host.clear();
  for (const auto& r : rows) host.push_back(cl_ulong(r.index * R) | (r.sum ? kRowInSums : 0));
  check(clEnqueueWriteBuffer(rt_.queue(), dst, CL_FALSE, 0, host.size() * sizeof(cl_ulong), host.data(), 0, nullptr,
                             nullptr),
        "clEnqueueWriteBuffer (offsets of an exchange)");
}

template <class T> void RowExchange<T>::launch(const char* kernel, std::size_t rows, cl_mem offs) const {
  const std::size_t R = b_.dims[0].R;
  rt_.run(kernel, work_group_, {R, rows}, b_.x.get(), b_.dims[0].V.get(), offs, int(rows), cl_ulong(R), kRowInSums,
          b_.exchange.get());
}

template class RowExchange<float>;
template class RowExchange<double>;
template class RowExchange<std::complex<float>>;
template class RowExchange<std::complex<double>>;

}  // namespace pscr::ocl
