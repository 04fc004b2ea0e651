#include "pscr/version.hpp"

namespace pscr {

const char* version() { return PSCR_VERSION_STRING; }

}  // namespace pscr
