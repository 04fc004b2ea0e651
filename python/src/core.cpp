// pscr._core: the C++ plans of libpscr for the Python package. Shapes, dtypes
// and batches are checked in python/pscr/plan.py; this layer takes arrays of
// exactly the plan's scalar type, in C order, and never copies them.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"

namespace py = pybind11;

namespace {

// The Python class (python/pscr/errors.py) of each pscr::Error class, most
// derived first, so that `except pscr.SizeMismatch` and `except ValueError`
// both work.
void translate_errors(std::exception_ptr p) {
  auto raise = [](const char* name, const std::exception& e) {
    py::object cls = py::module_::import("pscr.errors").attr(name);
    PyErr_SetString(cls.ptr(), e.what());
  };
  try {
    if (p) std::rethrow_exception(p);
  } catch (const pscr::KernelBuildError& e) {
    raise("KernelBuildError", e);
  } catch (const pscr::BackendError& e) {
    raise("BackendError", e);
  } catch (const pscr::SizeMismatch& e) {
    raise("SizeMismatch", e);
  } catch (const pscr::InvalidArgument& e) {
    raise("InvalidArgument", e);
  } catch (const pscr::NonFiniteInput& e) {
    raise("NonFiniteInput", e);
  } catch (const pscr::SingularPencil& e) {
    raise("SingularPencil", e);
  } catch (const pscr::NumericalBreakdown& e) {
    raise("NumericalBreakdown", e);
  } catch (const pscr::AllocationTooLarge& e) {
    raise("AllocationTooLarge", e);
  } catch (const pscr::FileFormatError& e) {
    raise("FileFormatError", e);
  } catch (const pscr::Error& e) {
    raise("Error", e);
  }
}

template <class T> using CArray = py::array_t<T, py::array::c_style>;

// The pointer of an array that must already have the plan's type and C order
// (plan.py converts); anything else is a bug of the caller, named here. Inputs
// may be read-only (np.frombuffer, read-only memory maps, arrays other
// libraries hand out): only outputs must be writable.
template <class T> const T* input_of(const py::array& a, const char* what) {
  if (!py::isinstance<CArray<T>>(a) || !(a.flags() & py::array::c_style))
    throw pscr::InvalidArgument(std::string(what) + ": needs a C-contiguous " + pscr::scalar_name<T>() + " array");
  return static_cast<const T*>(a.data());
}
template <class T> T* output_of(py::array& a, const char* what) {
  input_of<T>(a, what);
  if (!a.writeable()) throw pscr::InvalidArgument(std::string(what) + ": array is read-only");
  return static_cast<T*>(a.mutable_data());
}

template <class T> std::vector<T> vector_of(const py::array& a, py::ssize_t row, py::ssize_t count) {
  auto c = py::cast<CArray<T>>(a);
  auto r = c.template unchecked<2>();
  std::vector<T> v(static_cast<std::size_t>(count));
  for (py::ssize_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = r(row, i);
  return v;
}

// A factor from a (2, n) array: row 0 the diagonal, row 1 the off-diagonal in
// its first n − 1 entries (the layout pscr-solve reads) and, periodic, the
// corner (row n − 1 with row 0) in its last.
template <class T> pscr::Tridiagonal<T> tridiagonal_of(const py::array& a, bool periodic) {
  const py::ssize_t n = a.shape(1);
  return {vector_of<T>(a, 0, n), vector_of<T>(a, 1, periodic ? n : n > 0 ? n - 1 : 0)};
}

template <class T> py::array_t<T> array_of(const pscr::Tridiagonal<T>& t) {
  const std::size_t n = t.size();
  py::array_t<T> a({std::size_t{2}, n});
  auto w = a.template mutable_unchecked<2>();
  for (std::size_t i = 0; i < n; ++i) {
    w(0, i) = t.diag[i];
    w(1, i) = i < t.off.size() ? t.off[i] : T(0);
  }
  return a;
}

// (A, M, periodic)
template <class T> py::tuple factor_arrays(const pscr::Factor<T>& f) {
  return py::make_tuple(array_of(f.A), array_of(f.M), f.periodic());
}

template <class T>
pscr::Problem<T> problem_of(const std::vector<std::pair<py::array, py::array>>& factors, T c,
                            const std::vector<bool>& periodic) {
  std::vector<pscr::Factor<T>> f;
  for (std::size_t d = 0; d < factors.size(); ++d) {
    const bool cyclic = d < periodic.size() && periodic[d];
    f.push_back({tridiagonal_of<T>(factors[d].first, cyclic), tridiagonal_of<T>(factors[d].second, cyclic)});
  }
  return pscr::Problem<T>(std::move(f), c);
}

pscr::Options options_of(const py::dict& d) {
  pscr::Options o;
  for (auto [key, value] : d) {
    const auto k = py::cast<std::string>(key);
    if (k == "backend") {
      const auto b = py::cast<std::string>(value);
      if (b == "reference") o.backend = pscr::Backend::reference;
      else if (b == "opencl") o.backend = pscr::Backend::opencl;
      else throw pscr::InvalidArgument("backend '" + b + "' (needs 'reference' or 'opencl')");
    } else if (k == "radix") {
      o.radix = py::cast<int>(value);
    } else if (k == "threads") {
      o.threads = py::cast<int>(value);
    } else if (k == "device") {
      o.device = py::cast<std::string>(value);
    } else if (k == "devices") {
      o.devices = py::cast<std::vector<std::string>>(value);
    } else if (k == "device_split") {
      const auto v = py::cast<std::string>(value);
      if (v == "batches") o.device_split = pscr::DeviceSplit::batches;
      else if (v == "rows") o.device_split = pscr::DeviceSplit::rows;
      else throw pscr::InvalidArgument("device_split '" + v + "' (needs 'batches' or 'rows')");
    } else if (k == "tuning_file") {
      o.tuning_file = py::cast<std::string>(value);
    } else if (k == "program_cache") {
      o.program_cache = py::cast<std::string>(value);
    } else if (k == "profile") {
      o.profile = py::cast<bool>(value);
    } else if (k == "refine") {
      o.refine = py::cast<int>(value);
    } else if (k == "elimination") {
      const auto e = py::cast<std::string>(value);
      if (e == "automatic") o.elimination = pscr::Elimination::automatic;
      else if (e == "ordinary") o.elimination = pscr::Elimination::ordinary;
      else throw pscr::InvalidArgument("elimination '" + e + "' (needs 'automatic' or 'ordinary')");
    } else if (k == "queue") {  // a cl_command_queue as an integer (PyOpenCL's int_ptr)
      o.backend = pscr::Backend::opencl;
      o.opencl_queue = reinterpret_cast<void*>(py::cast<std::uintptr_t>(value));
    } else if (k == "parameters") {
      pscr::KernelParameters p;
      for (auto [pk, pv] : py::cast<py::dict>(value)) {
        const auto name = py::cast<std::string>(pk);
        bool found = false;
        for (const auto& info : pscr::parameter_table())
          if (name == info.name) {
            p.*info.member = py::cast<int>(pv);
            found = true;
          }
        if (!found) throw pscr::InvalidArgument("parameters: unknown kernel parameter '" + name + "'");
      }
      pscr::validate(p);
      o.parameters = p;
    } else {
      throw pscr::InvalidArgument("unknown option '" + k + "'");
    }
  }
  return o;
}

py::dict parameters_dict(const pscr::KernelParameters& p) {
  py::dict d;
  for (const auto& info : pscr::parameter_table()) d[info.name] = p.*info.member;
  return d;
}

py::dict info_dict(const pscr::PlanInfo& i, bool opencl) {
  py::dict d;
  d["backend"] = i.backend;
  d["device"] = i.device;
  d["init_seconds"] = i.init_seconds;
  d["eigen_seconds"] = i.eigen_seconds;
  d["build_seconds"] = i.build_seconds;
  d["program_cache"] = i.program_cache;
  d["radix"] = i.radix;
  d["eigen_problems"] = i.eigen_problems;
  d["host_bytes"] = i.host_bytes;
  d["device_bytes"] = i.device_bytes;
  d["staging_bytes"] = i.staging_bytes;
  d["pure_neumann"] = i.pure_neumann;
  d["elimination"] = i.elimination;
  d["eigen_methods"] = i.eigen_methods;
  d["dimension_methods"] = i.dimension_methods;
  d["shift_amplification"] = i.shift_amplification;
  d["elimination_growth"] = i.elimination_growth;
  d["predicted_error"] = i.predicted_error;
  d["warning"] = i.warning;
  d["line_solver"] = i.line_solver;
  // the kernel parameters and the cost model belong to the OpenCL backend: None elsewhere
  d["parameters"] = opencl ? py::object(parameters_dict(i.parameters)) : py::none();
  d["parameters_source"] = opencl ? py::object(py::str(i.parameters_source)) : py::none();
  d["device_architecture"] = opencl ? py::object(py::str(i.device_architecture)) : py::none();
  d["flops"] = opencl ? py::object(py::float_(i.flops)) : py::none();
  d["bytes"] = opencl ? py::object(py::float_(i.bytes)) : py::none();
  return d;
}

py::dict stats_dict(const pscr::SolveStats& s) {
  py::dict d;
  d["seconds"] = s.seconds;
  d["transfer_seconds"] = s.transfer_seconds;
  d["copy_in_seconds"] = s.copy_in_seconds;
  d["copy_out_seconds"] = s.copy_out_seconds;
  d["solve_seconds"] = s.solve_seconds;
  d["staging_bytes"] = s.staging_bytes;
  d["staging"] = s.staging;
  d["incompatible_part"] = s.incompatible_part;
  d["warning"] = s.warning;
  return d;
}

template <class T> void bind_type(py::module_& m) {
  const std::string suffix = pscr::scalar_name<T>();
  using P = pscr::Problem<T>;
  py::class_<P>(m, ("Problem_" + suffix).c_str())
      .def(py::init(&problem_of<T>), py::arg("factors"), py::arg("c"), py::arg("periodic"))
      .def_property_readonly("dims", &P::dims)
      .def_property_readonly("unknowns", &P::unknowns)
      .def("size", &P::size)
      .def_property_readonly("c", &P::c)
      .def("factor", [](const P& p, int d) { return factor_arrays(p.factor(d)); })
      .def("apply",
           [](const P& p, py::array x, py::array y) {
             const T* xp = input_of<T>(x, "apply: x");
             T* yp = output_of<T>(y, "apply: y");
             py::gil_scoped_release release;
             p.apply(xp, yp);
           })
      .def("backward_error", [](const P& p, py::array f, py::array u) {
        return p.backward_error(input_of<T>(f, "f"), input_of<T>(u, "u"));
      })
      // pscr::opencl::device_bytes: a plan's device memory before any is allocated
      .def("device_bytes", [](const P& p, const py::dict& options) {
        const pscr::Options o = options_of(options);
        py::gil_scoped_release release;
        return pscr::opencl::device_bytes(p, o);
      });

  using L = pscr::Plan<T>;
  py::class_<L>(m, ("Plan_" + suffix).c_str())
      .def(py::init([](const P& problem, const py::dict& options) {
             const pscr::Options o = options_of(options);
             py::gil_scoped_release release;  // planning takes a while; other Python threads go on
             return L(problem, o);
           }),
           py::arg("problem"), py::arg("options"))
      // f, u: C-contiguous arrays of `count` right-hand sides; u may be f.
      .def("solve",
           [](const L& plan, py::array f, py::array u, std::size_t count) {
             const T* fp = input_of<T>(f, "solve: f");
             T* up = output_of<T>(u, "solve: u");
             // count right-hand sides of N unknowns each, compared without the product count·N (it may wrap)
             const std::size_t N = plan.problem().unknowns();
             auto holds_count = [&](const py::array& a) {
               const auto entries = static_cast<std::size_t>(a.size());
               return entries % N == 0 && entries / N == count;
             };
             if (!holds_count(f) || !holds_count(u))
               throw pscr::SizeMismatch("solve: arrays of " + std::to_string(f.size()) + " and " +
                                        std::to_string(u.size()) + " entries for " + std::to_string(count) +
                                        " right-hand sides of " + std::to_string(N) + " unknowns");
             pscr::SolveStats s;
             {
               py::gil_scoped_release release;
               s = plan.solve_batch(fp, up, count);
             }
             return stats_dict(s);
           })
      // In place on an OpenCL buffer (cl_mem as an integer) of this plan's context.
      .def("solve_buffer",
           [](const L& plan, std::uintptr_t mem, std::size_t count) {
             pscr::SolveStats s;
             {
               py::gil_scoped_release release;
               s = pscr::opencl::solve(plan, reinterpret_cast<cl_mem>(mem), count);
             }
             return stats_dict(s);
           })
      // A zeroed array of `shape` in page-locked memory of the plan's
      // context (opencl::pinned_buffer), which the array owns.
      .def("pinned_empty",
           [](const L& plan, const std::vector<py::ssize_t>& shape) {
             std::size_t count = 1;
             for (py::ssize_t s : shape) count *= std::size_t(s);
             auto* buf = new pscr::opencl::PinnedBuffer(pscr::opencl::pinned_buffer(plan, count));
             py::capsule owner(buf, [](void* p) { delete static_cast<pscr::opencl::PinnedBuffer*>(p); });
             return py::array_t<T>(shape, static_cast<T*>(buf->data()), owner);
           })
      .def("context_ptr",
           [](const L& plan) { return reinterpret_cast<std::uintptr_t>(pscr::opencl::context(plan)); })
      .def("info",
           [](const L& plan) { return info_dict(plan.info(), plan.info().backend.rfind("opencl", 0) == 0); })
      .def("kernel_times",
           [](const L& plan) {
             py::list out;
             for (const auto& k : plan.kernel_times()) out.append(py::make_tuple(k.kernel, k.seconds, k.launches));
             return out;
           })
      .def("set_profiling", &L::set_profiling)
      // Keeps the GIL: it waits for solves in progress (they run without it)
      // and rewrites what info() reads, which is read under the GIL.
      .def("set_parameters",
           [](L& plan, const py::dict& p) {
             py::dict d;
             d["parameters"] = p;
             plan.set_parameters(*options_of(d).parameters);
           })
      .def("problem", [](const L& plan) { return plan.problem(); });
}

std::vector<double> mesh_of(const py::array_t<double, py::array::c_style | py::array::forcecast>& x) {
  if (x.ndim() != 1) throw pscr::InvalidArgument("mesh: needs a 1-D array of points");
  return std::vector<double>(x.data(), x.data() + x.size());
}

pscr::Boundary boundary_of(const std::string& b) {
  if (b == "dirichlet") return pscr::Boundary::Dirichlet;
  if (b == "neumann") return pscr::Boundary::Neumann;
  if (b == "periodic") return pscr::Boundary::Periodic;
  throw pscr::InvalidArgument("boundary '" + b + "' (needs 'dirichlet', 'neumann' or 'periodic')");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "libpscr plans (use the pscr package, not this module)";
  py::register_exception_translator(&translate_errors);
  bind_type<float>(m);
  bind_type<double>(m);
  bind_type<std::complex<float>>(m);
  bind_type<std::complex<double>>(m);
  m.attr("version") = pscr::version();
  m.def("poisson_factor", [](py::array_t<double, py::array::c_style | py::array::forcecast> x) {
    return factor_arrays(pscr::poisson_factor(mesh_of(x)));
  });
  m.def("poisson_periodic_factor", [](py::array_t<double, py::array::c_style | py::array::forcecast> x) {
    return factor_arrays(pscr::poisson_periodic_factor(mesh_of(x)));
  });
  m.def("poisson_neumann_factor", [](py::array_t<double, py::array::c_style | py::array::forcecast> x) {
    return factor_arrays(pscr::poisson_neumann_factor(mesh_of(x)));
  });
  m.def("helmholtz_factor", [](py::array_t<double, py::array::c_style | py::array::forcecast> x, double omega) {
    return factor_arrays(pscr::helmholtz_factor(mesh_of(x), omega));
  });
  m.def("laplacian_factor", [](int n, double h, const std::string& left, const std::string& right) {
    return factor_arrays(pscr::laplacian_factor(n, h, boundary_of(left), boundary_of(right)));
  });
  m.def("graded_mesh", [](int points, double length, double ratio) {
    const auto x = pscr::graded_mesh(points, length, ratio);
    return py::array_t<double>(static_cast<py::ssize_t>(x.size()), x.data());
  });
  m.def("prepare_device", [](const std::string& device) {
    py::gil_scoped_release release;
    pscr::opencl::prepare_device(device);
  });
  m.def("parameter_table", [] {
    py::list out;
    for (const auto& p : pscr::parameter_table())
      out.append(py::make_tuple(p.name, p.min, p.max, p.power_of_two, p.description));
    return out;
  });
}
