// SPDX-License-Identifier: GPL-2.0
/*
 * Every algorithm core compiled into one 32-bit object, for `make unit` to
 * list its undefined symbols: a `/` or `%` on a 64-bit value there becomes
 * a call to libgcc's __udivdi3 (or __umoddi3, __divdi3, __moddi3), which a
 * 32-bit kernel does not have, so the module would not load. The cores must
 * divide through div_u64()/div64_u64(); AQM_DIV64_OUT_OF_LINE makes those
 * external calls here so that their own `/` does not count.
 *
 * Built with -fkeep-inline-functions: every static inline function of the
 * headers is emitted even where nothing here calls it.
 */
#define AQM_DIV64_OUT_OF_LINE

#include "aqm_types.h"
#include "fixed_log2.h"
#include "dq_rate.h"
#include "pi.h"
#include "rem.h"
#include "blue.h"
#include "ared.h"
