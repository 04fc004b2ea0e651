! Calls libpscr from Fortran through its C API (pscr/pscr.h) with
! iso_c_binding: a 2D Poisson problem (5-point, 31 x 23) is planned and
! solved, and the residual is checked here. Exit status 1 on failure.
module pscr_c
  use iso_c_binding
  implicit none
  integer(c_int), parameter :: PSCR_FLOAT64 = 1, PSCR_OK = 0
  interface
    integer(c_int) function pscr_plan_create(plan, dtype, dims, n, a_diag, a_off, m_diag, m_off, c, options) &
        bind(C, name="pscr_plan_create")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), intent(out) :: plan
      integer(c_int), value :: dtype, dims
      integer(c_size_t), intent(in) :: n(*)
      type(c_ptr), intent(in) :: a_diag(*), a_off(*), m_diag(*), m_off(*)
      type(c_ptr), value :: c, options
    end function
    integer(c_int) function pscr_solve(plan, f, u, count) bind(C, name="pscr_solve")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: plan, f, u
      integer(c_size_t), value :: count
    end function
    subroutine pscr_plan_destroy(plan) bind(C, name="pscr_plan_destroy")
      import :: c_ptr
      type(c_ptr), value :: plan
    end subroutine
  end interface
end module pscr_c

program poisson
  use pscr_c
  implicit none
  integer, parameter :: n1 = 31, n2 = 23
  real(c_double), target :: d1(n1), o1(n1), m1(n1), z1(n1), d2(n2), o2(n2), m2(n2), z2(n2)
  real(c_double), target :: f(n1 * n2), u(n1 * n2), c
  integer(c_size_t) :: n(2)
  type(c_ptr) :: ad(2), ao(2), md(2), mo(2), plan
  integer :: i, j, k
  real(c_double) :: r, worst

  d1 = 2; o1 = -1; m1 = 1; z1 = 0
  d2 = 2; o2 = -1; m2 = 1; z2 = 0
  c = 0
  ! u(i1, i2) is element i1*n2 + i2 (0-based) of the C layout, index 2 contiguous
  do k = 1, n1 * n2
    f(k) = sin(0.37d0 * k) + 0.1d0
  end do
  n = [int(n1, c_size_t), int(n2, c_size_t)]
  ad = [c_loc(d1), c_loc(d2)]
  ao = [c_loc(o1), c_loc(o2)]
  md = [c_loc(m1), c_loc(m2)]
  mo = [c_loc(z1), c_loc(z2)]
  if (pscr_plan_create(plan, PSCR_FLOAT64, 2_c_int, n, ad, ao, md, mo, c_loc(c), c_null_ptr) /= PSCR_OK) then
    print *, "fortran example: pscr_plan_create failed"
    stop 1
  end if
  if (pscr_solve(plan, c_loc(f), c_loc(u), 1_c_size_t) /= PSCR_OK) then
    print *, "fortran example: pscr_solve failed"
    stop 1
  end if
  call pscr_plan_destroy(plan)
  worst = 0
  do i = 0, n1 - 1
    do j = 0, n2 - 1
      k = i * n2 + j + 1
      r = 4 * u(k) - f(k)
      if (i > 0) r = r - u(k - n2)
      if (i < n1 - 1) r = r - u(k + n2)
      if (j > 0) r = r - u(k - 1)
      if (j < n2 - 1) r = r - u(k + 1)
      worst = max(worst, abs(r))
    end do
  end do
  print '(a, es9.2)', "fortran example: residual ", worst
  if (worst > 1d-12) stop 1
end program poisson
