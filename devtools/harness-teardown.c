// SPDX-License-Identifier: GPL-2.0-only
/*
 * harness-teardown.c: does kselftest_harness.h run a fixture's teardown
 * after a failed assertion? check.sh builds it with -O2 against the
 * build tree's harness: the simgpu selftests rely on their teardowns to
 * wait for the loads they submitted, so that a failed test does not fail
 * the next one too. The test fails on purpose; the teardown says
 * "teardown ran" if it runs.
 */
#include "kselftest_harness.h"

FIXTURE(f) {
	int state;
};

FIXTURE_SETUP(f)
{
	self->state = 1;
}

FIXTURE_TEARDOWN(f)
{
	TH_LOG("teardown ran, state %d", self->state);
}

TEST_F(f, fails_on_purpose)
{
	self->state = 2;
	ASSERT_TRUE(0);
}

TEST_HARNESS_MAIN
