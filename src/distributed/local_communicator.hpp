// Ranks that are threads of one process (internal part; the public
// local_communicators is in pscr/distributed.hpp).
#pragma once
#include "pscr/distributed.hpp"

namespace pscr {

// Wakes the other ranks of c's group from their barriers with an error (a
// rank that has thrown will make no further collective call); no effect on
// other communicators.
void abort_local_ranks(Communicator& c);
// Clears that state for the next collective calls (no rank may be inside one).
void reset_local_ranks(Communicator& c);

}  // namespace pscr
