// SPDX-License-Identifier: GPL-2.0
/* Set one mark for make bench-account (mark.h) */
#include "mark.h"

int main(void)
{
	insn_account_mark();
	return 0;
}
