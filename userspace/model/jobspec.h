/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line grammar of jobs and peer lists:
 *   job add NAME [id N] KEYWORDS...
 *   job set NAME|id N [name NEW] KEYWORDS...
 *   peer add|del JOB PEER...
 */
#ifndef EW_JOBSPEC_H
#define EW_JOBSPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* A job named on the command line: by id if id != 0, else by name. */
struct ew_jobref {
	uint32_t id;
	char name[EASTWEST_JOB_NAME_MAX];
};

int ew_jobref_parse(int *argc, char ***argv, struct ew_jobref *ref);
char *ew_jobref_str(const struct ew_jobref *ref, char *buf, size_t len);
int ew_jobspec_parse(int argc, char *argv[], bool set, struct ew_jobref *ref,
		     struct ew_job_desc *job);
int ew_job_derive_psn_key(struct ew_job_desc *job, const char *name, char *why,
			  size_t why_len);
int ew_peerlist_parse(int argc, char *argv[], struct ew_peers *peers);
int ew_peerlist_read(const char *file, struct ew_peers *peers);

#endif /* EW_JOBSPEC_H */
