// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions executed at every
 * address, between marks that the guest sets: the per-function account of
 * `make bench-account`, counted as `make bench` counts (under -icount the
 * guest's clock is the same instruction count).
 *
 * Every translated block gets an inline counter of its executions; a
 * block's instructions each count once per execution (a block left early by
 * an exception over-counts its tail: rare on the paths measured). The guest
 * sets a mark by running `movl $ACCOUNT_MAGIC, %eax; cpuid` (build/bench/mark);
 * at mark N the plugin writes OUT.N: what ran since mark N - 1, one line per
 * kernel block that ran ("COUNT ADDR ADDR ..." with each instruction's
 * address, in hex) and one "user COUNT" line for all user-space
 * instructions. Mark 1's file holds the boot.
 *
 * usage: qemu-system-x86_64 ... -icount shift=0 \
 *          -plugin build/bench/insn_account.so,out=DIR/account
 * It reads the counters without locks: run it with one TCG thread (-icount
 * is one).
 *
 * The declarations below are the parts of QEMU's plugin API (version 1, as
 * in QEMU 7.2's qemu-plugin.h) this plugin uses; Debian ships no header.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr,
					      uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* the mark: movl $ACCOUNT_MAGIC, %eax (b8 + imm32), then cpuid (0f a2) */
#define ACCOUNT_MAGIC 0x41514d31u
/* x86-64 kernel addresses: the upper half */
#define KERNEL_START 0xffff800000000000ull

struct block {
	struct block *next;
	uint64_t executed;	/* incremented inline by the translated code */
	uint64_t reported;	/* executed at the last mark */
	size_t n_insns;
	uint64_t insn_vaddr[];
};

static struct block *blocks;
static uint64_t user_insns, user_reported;
static const char *out_prefix;
static unsigned int marks;

static void write_since_last_mark(void)
{
	char path[4096];
	struct block *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", out_prefix, ++marks);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "insn_account: %s: %s\n", path, strerror(errno));
		return;
	}
	for (b = blocks; b; b = b->next) {
		uint64_t ran = b->executed - b->reported;

		if (!ran)
			continue;
		b->reported = b->executed;
		fprintf(f, "%llu", (unsigned long long)ran);
		for (size_t i = 0; i < b->n_insns; i++)
			fprintf(f, " %llx", (unsigned long long)b->insn_vaddr[i]);
		fputc('\n', f);
	}
	fprintf(f, "user %llu\n", (unsigned long long)(user_insns - user_reported));
	user_reported = user_insns;
	if (fclose(f))
		fprintf(stderr, "insn_account: %s: %s\n", path, strerror(errno));
}

static void on_mark(unsigned int vcpu_index, void *userdata)
{
	write_since_last_mark();
}

static bool is_mark(struct qemu_plugin_insn *mov, struct qemu_plugin_insn *cpuid)
{
	const unsigned char *m = qemu_plugin_insn_data(mov);
	const unsigned char *c = qemu_plugin_insn_data(cpuid);
	uint32_t imm;

	if (qemu_plugin_insn_size(mov) != 5 || m[0] != 0xb8 ||
	    qemu_plugin_insn_size(cpuid) != 2 || c[0] != 0x0f || c[1] != 0xa2)
		return false;
	memcpy(&imm, m + 1, sizeof(imm));
	return imm == ACCOUNT_MAGIC;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	if (!n)
		return;
	if (qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) < KERNEL_START) {
		/* user space: one total, and the marks */
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &user_insns, n);
		for (size_t i = 1; i < n; i++) {
			struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

			if (is_mark(qemu_plugin_tb_get_insn(tb, i - 1), insn))
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
								       QEMU_PLUGIN_CB_NO_REGS,
								       NULL);
		}
		return;
	}
	b = calloc(1, sizeof(*b) + n * sizeof(b->insn_vaddr[0]));
	if (!b) {
		fprintf(stderr, "insn_account: out of memory\n");
		abort();
	}
	b->n_insns = n;
	for (size_t i = 0; i < n; i++)
		b->insn_vaddr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->executed, 1);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	struct block *b = blocks;

	fprintf(stderr, "insn_account: %u marks written to %s.N\n", marks, out_prefix);
	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out_prefix = argv[i] + 4;
		} else {
			fprintf(stderr, "insn_account: unknown argument %s (want out=PREFIX)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_prefix) {
		fprintf(stderr, "insn_account: no out=PREFIX\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
