// SPDX-License-Identifier: GPL-2.0-only
/* Power the UML guest off: the last step of the init script of vm-run. */
#include <stdio.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	sync();
	reboot(RB_POWER_OFF);
	perror("reboot");
	return 1;
}
