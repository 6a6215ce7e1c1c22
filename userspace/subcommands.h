/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects of the command line: "eastwestctl OBJECT VERB ARGS".
 * Each returns an exit code (enum ew_exit).
 */
#ifndef EW_SUBCOMMANDS_H
#define EW_SUBCOMMANDS_H

#include <stdio.h>

#include "nl.h"

struct ew_job_desc;

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

/* Handles "help" and an unknown or missing verb for OBJECT. */
int ew_verb_error(const char *object, int argc, char *argv[],
		  void (*usage)(FILE *f));
int ew_no_more_args(int argc, char *argv[]);
int ew_connect_after(int argc, char *argv[], struct ewnl **nl);
int ew_job_of_args(const char *verb, int argc, char *argv[], struct ewnl **nl,
		   struct ew_job_desc *job);

#endif /* EW_SUBCOMMANDS_H */
