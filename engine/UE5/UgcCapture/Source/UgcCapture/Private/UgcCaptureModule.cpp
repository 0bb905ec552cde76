// UgcCaptureModule.cpp — the module and its console command:
//     ugc.Capture [path] [-nosize] [-flush]
// writes the whole UObject heap to PATH (default UgcCapture.ugct in the
// process's working directory) through the capture library; -flush finishes
// loading every package first instead of refusing while one loads.
#include "UgcCaptureModule.h"
#include "UgcHeapCapture.h"

#include "HAL/IConsoleManager.h"
#include "Modules/ModuleManager.h"

IMPLEMENT_MODULE(FUgcCaptureModule, UgcCapture)

static void RunUgcCapture(const TArray<FString>& Args, UWorld* World, FOutputDevice& Out)
{
	FUgcCaptureOptions Options;
	for (const FString& Arg : Args)
	{
		if (Arg == TEXT("-nosize"))
		{
			Options.bSizes = false;
		}
		else if (Arg == TEXT("-flush"))
		{
			Options.bFlushAsyncLoading = true;
		}
		else if (Arg.StartsWith(TEXT("-")))
		{
			Out.Logf(TEXT("ugc.Capture: unknown option %s (usage: ugc.Capture [path] [-nosize] [-flush])"), *Arg);
			return;
		}
		else
		{
			Options.Path = Arg;
		}
	}
	UgcCaptureHeap(Options, Out);
}

// A no-op where NO_CVARS (HAL/IConsoleManager.h).
static FAutoConsoleCommandWithWorldArgsAndOutputDevice GUgcCaptureCommand(
	TEXT("ugc.Capture"),
	TEXT("ugc.Capture [path] [-nosize] [-flush]: write the UObject heap (objects, references, FGCObject ")
	TEXT("referencers, clusters) as a ugc text snapshot for ugc-analyze. -nosize skips the per-object ")
	TEXT("size (FArchiveCountMem), the slowest part; -flush finishes loading packages first (otherwise ")
	TEXT("the command refuses while any loads)."),
	FConsoleCommandWithWorldArgsAndOutputDeviceDelegate::CreateStatic(&RunUgcCapture));
