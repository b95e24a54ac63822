/* one-kmalloc.h - a text reader of one kmalloc event, whose strings seed a
 * native or spool writer in the trace tests. */
#pragma once

#include "tests/testutil.h"
#include "traces/reader.h"

#include <gio/gio.h>

/* The reader, with its one event already read when @read_it (so that its
 * strings are interned). */
static inline SimTraceReader *
tt_one_kmalloc_reader (gboolean read_it)
{
  static const char text[] =
    "  bash-1  [000] .....   1.000001: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 "
    "bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n";
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (text, -1, NULL);
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_new (in, "t", SIM_TRACE_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  assert_non_null (r);
  if (read_it)
    {
      SimTraceEvent ev;
      assert_true (sim_trace_reader_next (r, &ev, &error));
    }
  return r;
}
