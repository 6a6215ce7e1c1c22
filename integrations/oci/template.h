/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Job templates: admin-written files that say what a container's job may
 * use. An annotation only names one.
 */
#ifndef EWOCI_TEMPLATE_H
#define EWOCI_TEMPLATE_H

#include <stddef.h>

#include "addr.h"
#include "hook.h"

/* Largest template file accepted. */
#define EWOCI_TEMPLATE_MAX	(1 << 20)
/* Longest template name. */
#define EWOCI_TEMPLATE_NAME_MAX	64

int ewoci_template_name_check(const char *name, const char **why);
int ewoci_template_words(const char *text, size_t len, struct ew_strv *words,
			 char *why, size_t whylen);
int ewoci_template_parse(const char *text, size_t len, struct ew_strv *words,
			 struct ewoci_jobaddr *ja, char *why, size_t whylen);
int ewoci_template_load(const char *dir, const char *name,
			struct ew_strv *words);
int ewoci_template_load_addr(const char *dir, const char *name,
			     struct ew_strv *words, struct ewoci_jobaddr *ja);

#endif /* EWOCI_TEMPLATE_H */
