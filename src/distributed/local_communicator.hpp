// Ranks that are threads of one process (internal part; the public
// local_communicators is in pscr/distributed.hpp).
#pragma once
#include <vector>

#include "pscr/distributed.hpp"

namespace pscr {

// Wakes the other ranks of c's group from their barriers with an error (a
// rank that has thrown will make no further collective call); no effect on
// other communicators.
void abort_local_ranks(Communicator& c);
// Clears that state for the next collective calls (no rank may be inside one).
void reset_local_ranks(Communicator& c);

// Ranks that share the address space (threads of one process): every rank's
// `mine` in rank order, so that a rank reads the others' data in place
// instead of receiving copies (collective). Ranks of another communicator
// (MPI) get an empty list, without a message. The pointers are exchanged
// between two barriers; what they point to must stay valid and unchanged
// until every rank has read it, which the caller arranges.
std::vector<const void*> share_in_place(Communicator& c, const void* mine);
// Whether share_in_place shares anything on c (not collective).
bool shares_address_space(const Communicator& c);

}  // namespace pscr
