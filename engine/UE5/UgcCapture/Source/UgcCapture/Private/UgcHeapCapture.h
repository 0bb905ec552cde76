// UgcHeapCapture.h — what ugc.Capture does: write the whole UObject heap to
// a ugc text snapshot through the capture library (ugc_capture.h).
#pragma once

#include "CoreMinimal.h"

struct FUgcCaptureOptions
{
	// Output file; replaced atomically when the capture completes.
	FString Path = TEXT("UgcCapture.ugct");
	// Measure each object's size (FArchiveCountMem + exclusive resource
	// size); false writes 0 and is several times faster.
	bool bSizes = true;
	// Finish loading every package (FlushAsyncLoading) before capturing;
	// false refuses while packages are loading.
	bool bFlushAsyncLoading = false;
};

// Capture on the game thread, between two garbage collections and not while
// packages are loading; objects still being constructed or loaded are
// written without their references and sizes.  Reports
// what it wrote (counts, bytes, seconds) or why it did not to OUT; true when
// the file was written.
bool UgcCaptureHeap(const FUgcCaptureOptions& Options, FOutputDevice& Out);
