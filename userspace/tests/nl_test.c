// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the netlink transport (nl.c) against the kernel's own
 * generic netlink controller ("nlctrl"), which every kernel has: family
 * resolution, do and dump requests, sequence matching and skipping of
 * stale replies, extended acks (message, offset of the bad attribute).
 */
#include <errno.h>
#include <linux/genetlink.h>

#include "helpers.h"

#include "io/nl.h"

struct fams {
	int n;
	bool nlctrl;
	int resets;
};

static int fam_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fams *f = data;
	const struct nlattr *a;

	f->n++;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME &&
		    !strcmp(mnl_attr_get_str(a), "nlctrl"))
			f->nlctrl = true;
	return MNL_CB_OK;
}

static void fam_reset(void *data)
{
	struct fams *f = data;

	f->resets++;
	f->n = 0;
}

static struct ewnl *open_ctrl(void)
{
	struct ewnl *nl = NULL;

	assert_int_equal(ewnl_open_family(&nl, "nlctrl"), EW_OK);
	assert_int_equal(nl->family, GENL_ID_CTRL);
	return nl;
}

/* CTRL_CMD_GETFAMILY for @name, its replies counted in @f. */
static int get_family(struct ewnl *nl, const char *name, struct fams *f)
{
	struct nlmsghdr *nlh = ewnl_req(nl, CTRL_CMD_GETFAMILY, 0);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return ewnl_do(nl, nlh, fam_cb, f);
}

static void test_missing_family(void **state)
{
	struct ewnl *nl = NULL;

	(void)state;
	assert_int_equal(ewnl_open_family(&nl, "no-such-fam"), EW_NOTAVAIL);
	assert_null(nl);
	/* Only the eastwest family's absence is blamed on the eastwest module. */
	assert_non_null(strstr(ew_last_error(), "no generic netlink family \"no-such-fam\""));
	assert_null(strstr(ew_last_error(), "eastwest"));
}

static void test_do_and_dump(void **state)
{
	struct fams f = { 0 };
	struct nlmsghdr *nlh;
	struct ewnl *nl;

	(void)state;
	nl = open_ctrl();
	assert_int_equal(get_family(nl, "nlctrl", &f), 0);
	assert_int_equal(f.n, 1);
	assert_true(f.nlctrl);

	memset(&f, 0, sizeof(f));
	nlh = ewnl_req(nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	assert_int_equal(ewnl_dump(nl, nlh, fam_cb, &f, fam_reset), 0);
	assert_true(f.n >= 1);
	assert_true(f.nlctrl);
	assert_int_equal(f.resets, 0);
	ewnl_close(nl);
}

static void test_stale_replies_skipped(void **state)
{
	struct fams f = { 0 };
	struct nlmsghdr *nlh;
	struct ewnl *nl;

	(void)state;
	nl = open_ctrl();
	/* A dump whose replies are never read... */
	nlh = ewnl_req(nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	nlh->nlmsg_seq = 1;
	assert_true(mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) > 0);
	/* ...does not confuse the next request. */
	assert_int_equal(get_family(nl, "nlctrl", &f), 0);
	assert_int_equal(f.n, 1);
	ewnl_close(nl);
}

static void test_errors(void **state)
{
	struct fams f = { 0 };
	struct nlmsghdr *nlh;
	struct ewnl *nl;

	(void)state;
	nl = open_ctrl();
	assert_int_equal(get_family(nl, "no-such-fam", &f), -ENOENT);
	assert_int_equal(nl->err.code, ENOENT);
	assert_int_equal(ewnl_report(nl, "lookup"), EW_NOENT);
	assert_string_equal(ew_last_error(), "lookup: No such file or directory");
	assert_int_equal(ewnl_exit_code(-EPERM), EW_PERM);
	assert_int_equal(ewnl_exit_code(-EINVAL), EW_FAIL);
	assert_int_equal(ewnl_exit_code(-ENOENT), EW_NOENT);

	/* A name longer than GENL_NAMSIZ fails policy validation, with extack. */
	nlh = ewnl_req(nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "a-name-too-long-for-genl");
	assert_int_equal(ewnl_do(nl, nlh, fam_cb, &f), -EINVAL);
	assert_string_equal(nl->err.msg, "Attribute failed policy validation");
	assert_int_equal(nl->err.top_type, CTRL_ATTR_FAMILY_NAME);
	assert_int_equal(nl->err.top_index, 0);
	assert_int_equal(ewnl_report(nl, "getfamily"), EW_FAIL);
	assert_non_null(strstr(ew_last_error(),
			       "getfamily: Attribute failed policy validation ("));

	/* A u16 attribute one byte long fails policy validation too. */
	nlh = ewnl_req(nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	mnl_attr_put_u8(nlh, CTRL_ATTR_FAMILY_ID, 1);
	assert_true(ewnl_do(nl, nlh, fam_cb, &f) < 0);
	if (nl->err.msg[0]) {
		/* The offset names the second top-level attribute (type 1). */
		assert_int_equal(nl->err.top_type, CTRL_ATTR_FAMILY_ID);
		assert_int_equal(nl->err.top_index, 0);
		assert_true(nl->err.attr[0] != '\0');
		ewnl_report(nl, "getfamily");
		assert_non_null(strstr(ew_last_error(), nl->err.msg));
		assert_non_null(strstr(ew_last_error(), "("));
	}
	/* The socket still works afterwards. */
	f.n = 0;
	assert_int_equal(get_family(nl, "nlctrl", &f), 0);
	assert_int_equal(f.n, 1);
	ewnl_close(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_family),
		cmocka_unit_test(test_do_and_dump),
		cmocka_unit_test(test_stale_replies_skipped),
		cmocka_unit_test(test_errors),
	};

	ew_quiet = true;
	return cmocka_run_group_tests_name("nl", tests, NULL, NULL);
}
