/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects of the command line: "eastwestctl OBJECT VERB ARGS".
 * Each returns an exit code (enum ew_exit).
 */
#ifndef EW_SUBCOMMANDS_H
#define EW_SUBCOMMANDS_H

#include <stdio.h>

#include "io/nl.h"

struct ew_job_desc;
struct ew_plan;
struct ew_state;

int ew_connect(struct ewnl **nl);
void ew_disconnect(void);

int job_main(int argc, char *argv[]);
int peer_main(int argc, char *argv[]);
int dev_main(int argc, char *argv[]);
int config_main(int argc, char *argv[]);
int stats_main(int argc, char *argv[]);
int monitor_main(int argc, char *argv[]);
int show_main(int argc, char *argv[]);
int apply_main(int argc, char *argv[]);
int path_main(int argc, char *argv[]);
int attest_main(int argc, char *argv[]);
int node_main(int argc, char *argv[]);
int mgmt_main(int argc, char *argv[]);

void job_usage(FILE *f);
void peer_usage(FILE *f);
void dev_usage(FILE *f);
void config_usage(FILE *f);
void stats_usage(FILE *f);
void monitor_usage(FILE *f);
void show_usage(FILE *f);
void apply_usage(FILE *f);
void path_usage(FILE *f);
void attest_usage(FILE *f);
void node_usage(FILE *f);
void mgmt_usage(FILE *f);

/*
 * An object's verbs, a table as iproute2's rdma keeps them (struct rd_cmd):
 * the first entry is the default, then come the verbs, and { NULL } ends
 * it. Verbs are matched whole, never by prefix. The default runs
 *   { NULL, fn }         with no verb at all: fn(0, argv);
 *   { EW_CMD_ANY, fn }   whenever the first word is no verb (or there is
 *                        none): fn gets all the words (an object that takes
 *                        options, with or without verbs);
 *   { NULL, NULL }       never: a verb is needed.
 */
struct ew_cmd {
	const char *name;
	int (*fn)(int argc, char *argv[]);
};

#define EW_CMD_ANY "*"

/*
 * Runs OBJECT's verb argv[0] from CMDS on the words after it, or the
 * default; "help" prints USAGE; an unknown or missing verb is
 * ew_verb_error()'s.
 */
int ew_exec_cmd(const char *object, void (*usage)(FILE *f),
		const struct ew_cmd *cmds, int argc, char *argv[]);

/* Handles "help" and an unknown or missing verb for OBJECT. */
int ew_verb_error(const char *object, int argc, char *argv[],
		  void (*usage)(FILE *f));
int ew_no_more_args(int argc, char *argv[]);
int ew_connect_after(int argc, char *argv[], struct ewnl **nl);
int ew_job_of_args(const char *verb, int argc, char *argv[], struct ewnl **nl,
		   struct ew_job_desc *job);

/*
 * What ew_plan_undo() (apply.c) takes back: the state read before the first
 * change, and the changes sent: the first n steps of plan (the one that
 * failed included), or with no plan, every change to the job that before
 * holds alone.
 */
struct ew_undo {
	const struct ew_state *before;
	const struct ew_plan *plan;
	size_t n;
	uint32_t job;		/* before is ew_ipc_job_state()'s, of this job */
	bool with_peers;	/* before has every job's peers */
};

/* What ew_plan_undo() found. */
enum ew_undone {
	EW_UNDO_NOTHING,	/* nothing had changed: nothing to undo */
	EW_UNDO_RESTORED,	/* the jobs and settings are as they were */
	EW_UNDO_LEFT,		/* not as they were, or unknown: changes stay */
};

enum ew_undone ew_plan_undo(struct ewnl *nl, const struct ew_undo *u, const char *what);
int ew_undo_exit(enum ew_undone undone, int refused);

#endif /* EW_SUBCOMMANDS_H */
