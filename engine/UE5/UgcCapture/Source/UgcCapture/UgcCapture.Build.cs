// UgcCapture.Build.cs — the UgcCapture runtime module: the console command
// ugc.Capture and, compiled as C beside it, the capture library's sources
// (capture/ugc_*.c and ugc_capture.h, copied into Private/ by install.sh).
using UnrealBuildTool;

public class UgcCapture : ModuleRules
{
	public UgcCapture(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;
		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine" });
		// The engine ships no zstd for plugins to link: the library is built
		// without it and writes plain .ugct (compress the file afterwards).
		PrivateDefinitions.Add("UGC_CAPTURE_NO_ZSTD=1");
		// The library's .c files are C99, compiled one by one, not in unity blobs.
		bUseUnity = false;
	}
}
