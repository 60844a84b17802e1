package main

import "context"

func cmdTest(ctx context.Context, args []string) error     { return nil }
func cmdFixtures(ctx context.Context, args []string) error { return nil }
