// SPDX-License-Identifier: GPL-2.0
/* The output options of eastwestctl and eastwest-attest (ewlib.h). */
#include "ewlib.h"

struct ew_opts ew_opts;
