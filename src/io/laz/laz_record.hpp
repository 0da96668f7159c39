// LAS point records (the bytes a LAS file stores, LAS 1.4 R15 tables 7-17) to and from
// LASzip's point struct, for the LAZ reader's records and the LAZ writer's write_records().
#pragma once

#include <laszip/laszip_api.h>

#include <cstddef>

namespace simlod::detail {

/// Writes the record of `p` (point format `format`, `length` bytes: the extra bytes after the
/// format's fields come from p.extra_bytes).
void laszip_to_record(const laszip_point_struct& p, int format, std::size_t length, std::byte* r);

/// Sets every field of `p` from the record `r` (p.extra_bytes must hold length - the format's
/// minimum bytes). For formats 6-10 the legacy fields get their LAS 1.4 compatible values.
void record_to_laszip(const std::byte* r, int format, std::size_t length, laszip_point_struct& p);

}  // namespace simlod::detail
