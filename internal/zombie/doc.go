// Package zombie waits for a child process to exit and leaves it
// unreaped. While the exited leader of a process group is a zombie, its
// PID, and with it the group's ID, cannot be reused, so the group can
// still be signalled safely; exec.Cmd.Wait reaps it afterwards:
//
//	zombie.WaitExited(cmd.Process.Pid)
//	_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL) // what is left of the group
//	err := cmd.Wait()
package zombie
