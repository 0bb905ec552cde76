// UgcHeapCapture.cpp — ugc.Capture's work: walk GUObjectArray and write every
// object, its references (with member names and kinds), the FGCObject
// referencers' references and the GC clusters through the capture library.
//
// All formatting (escaping, flag names, length limits, atomic output) is the
// library's; this file only reads the engine.  It reads, never writes: no
// serial number is allocated (FUObjectItem::GetSerialNumber() and
// FWeakObjectPtr::Get() only read; no weak or soft pointer is assigned or
// resolved), no flag is set, no reference is modified.  Every engine call is
// checked against the UE 5.5.1 headers (engine/UE5/README.md lists them);
// none has been run in an engine.
#include "UgcHeapCapture.h"

#include "CoreGlobals.h"
#include "HAL/ThreadHeartBeat.h"
#include "Misc/App.h"
#include "Misc/EngineVersion.h"
#include "Serialization/ArchiveCountMem.h"
#include "Serialization/ArchiveUObject.h"
#include "UObject/GCObject.h"
#include "UObject/GarbageCollection.h"
#include "UObject/Package.h"
#include "UObject/UObjectArray.h"
#include "UObject/UObjectGlobals.h"
#include "UObject/UObjectIterator.h"
#include "UObject/UnrealType.h"
#include "UObject/WeakObjectPtr.h"

#include <chrono>

#include "ugc_capture.h"

// The library names internal flags by the engine's bit values: check them here,
// where the engine's definitions are visible (UObject/ObjectMacros.h).
static_assert((uint32)EInternalObjectFlags::LoaderImport == UGC_IF_LoaderImport, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Garbage == UGC_IF_Garbage, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::AsyncLoadingPhase1 == UGC_IF_AsyncLoadingPhase1, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::ReachableInCluster == UGC_IF_ReachableInCluster, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::ClusterRoot == UGC_IF_ClusterRoot, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Native == UGC_IF_Native, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Async == UGC_IF_Async, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::AsyncLoadingPhase2 == UGC_IF_AsyncLoadingPhase2, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::Unreachable == UGC_IF_Unreachable, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::RefCounted == UGC_IF_RefCounted, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::RootSet == UGC_IF_RootSet, "EInternalObjectFlags moved");
static_assert((uint32)EInternalObjectFlags::PendingConstruction == UGC_IF_PendingConstruction, "EInternalObjectFlags moved");
// EObjectFlags go through unchanged; the library's names follow these values.
static_assert(RF_Public == 0x1 && RF_Standalone == 0x2 && RF_ClassDefaultObject == 0x10 && RF_Transient == 0x40 &&
	RF_BeginDestroyed == 0x8000 && RF_FinishDestroyed == 0x10000 && RF_WasLoaded == 0x80000 &&
	RF_MirroredGarbage == 0x40000000, "EObjectFlags moved");

namespace
{
// Where every record goes: the writer, the first error, and the UTF-8 form
// of each member name met (converted once per FProperty, not per reference).
struct FUgcSink
{
	ugc_writer* Writer = nullptr;
	int Error = UGC_OK;
	TMap<const FProperty*, TArray<ANSICHAR>> Names;

	const char* PropertyName(const FProperty* Prop)
	{
		if (!Prop)
		{
			return nullptr;
		}
		if (TArray<ANSICHAR>* Found = Names.Find(Prop))
		{
			return Found->GetData();
		}
		FTCHARToUTF8 Utf8(*Prop->GetName());
		TArray<ANSICHAR>& Name = Names.Add(Prop);
		Name.Append(Utf8.Get(), Utf8.Length());
		Name.Add('\0');
		return Name.GetData();
	}

	void Ref(int32 From, const UObject* To, ugc_ref_kind Kind, const FProperty* Prop)
	{
		if (To && Error == UGC_OK)
		{
			Error = ugc_writer_ref(Writer, From, (int32)To->GetUniqueID(), Kind, PropertyName(Prop));
		}
	}
};

// TWeakObjectPtr members, by serialization.  The GC's schema has no weak
// pointers, and an archive that is an object reference collector without
// ArIsModifyingWeakAndStrongReferences never reaches operator<<(UObject*&)
// for them (FArchiveUObject::SerializeWeakObjectPtr, ArchiveUObject.cpp:131-152):
// so this archive takes them one step earlier, at operator<<(FWeakObjectPtr&),
// which FWeakObjectProperty::SerializeItem calls (PropertyWeakObjectPtr.cpp:74),
// reads Get(true) (garbage targets included; reads, assigns nothing) and
// writes nothing back.  A weak pointer keeps nothing alive and the GC does
// not clear it: "soft" in the format.  Strong references are the
// collector's (FUgcCollector); the archive ignores them, and does not even
// resolve an FObjectPtr.  Soft and lazy pointers never reach it:
// FSoftObjectProperty::SerializeItem skips them for a non-persistent
// reference collector (PropertySoftObjectPtr.cpp:95) and
// FArchiveUObject::SerializeLazyObjectPtr does (ArchiveUObject.cpp:31);
// reading them would resolve them and cache a weak pointer (a serial number).
class FUgcWeakPointerArchive : public FArchiveUObject
{
public:
	explicit FUgcWeakPointerArchive(FUgcSink& InSink) : Sink(InSink)
	{
		// transient members are serialized too (a reference collector that
		// is not persistent), as the GC sees them; ArIsObjectReferenceCollector
		// is FArchiveState's, made visible to FArchive's subclasses (Archive.h:2094)
		ArIsObjectReferenceCollector = true;
	}

	int32 From = 0;

	using FArchiveUObject::operator<<; // the overloads not overridden here stay visible

	virtual FArchive& operator<<(FWeakObjectPtr& Value) override
	{
		const FProperty* Prop = GetSerializedProperty();
		Sink.Ref(From, Value.Get(true), UGC_REF_SOFT, Prop);
		return *this;
	}

	virtual FArchive& operator<<(UObject*&) override { return *this; }
	virtual FArchive& operator<<(FObjectPtr&) override { return *this; }

	virtual FString GetArchiveName() const override { return TEXT("FUgcWeakPointerArchive"); }

private:
	FUgcSink& Sink;
};

// What the GC's own traversal reports, through the exported FReferenceCollector
// interface (UObjectGlobals.h:2700-2930):
// - EWalk::Properties: FReferenceCollector::AddPropertyReferencesWithStructARO
//   (Class, Obj, Obj) (UObjectGlobals.cpp:5197) walks what the GC's schema
//   walks, CPF_SkipSerialization members included, and calls structs'
//   AddStructReferencedObjects; a member's reference comes with its FProperty
//   ("strong", named), a struct ARO's without one ("aro", unnamed);
// - EWalk::AddReferencedObjects: UClass::CallAddReferencedObjects (Class.h:2985):
//   "aro", and "weak" for what it registers by MarkWeakObjectReferenceForClearing;
// - EWalk::GCObjects: the FGCObject referencer's AddReferencedObjects, as "g"
//   records named by the FGCObject being asked.
class FUgcCollector : public FReferenceCollector
{
public:
	enum class EWalk { Properties, AddReferencedObjects, GCObjects };

	FUgcCollector(FUgcSink& InSink, EWalk InWalk) : Walk(InWalk), Sink(InSink) {}

	int32 From = 0;
	EWalk Walk;

	// The pure virtual every AddReferencedObject overload ends in (UObjectGlobals.h:2917).
	virtual void HandleObjectReference(UObject*& Object, const UObject* ReferencingObject,
		const FProperty* ReferencingProperty) override
	{
		if (!Object || Sink.Error != UGC_OK)
		{
			return;
		}
		switch (Walk)
		{
		case EWalk::Properties:
			Sink.Ref(From, Object, ReferencingProperty ? UGC_REF_STRONG : UGC_REF_ARO, ReferencingProperty);
			break;
		case EWalk::AddReferencedObjects:
			Sink.Ref(From, Object, UGC_REF_ARO, ReferencingProperty);
			break;
		case EWalk::GCObjects:
			GCObjectReference(Object, ReferencingProperty);
			break;
		}
	}

	// A raw pointer the object asks the GC to clear rather than follow
	// (UObjectGlobals.h:2767).  Returning true tells the caller it is handled,
	// as the chain search's collector does (ReferenceChainSearch.cpp:311).  The
	// FGCObjects' weak references have no place in a "g" record: not written.
	virtual bool MarkWeakObjectReferenceForClearing(UObject** WeakReference, UObject* /*ReferenceOwner*/) override
	{
		if (WeakReference && Walk != EWalk::GCObjects)
		{
			Sink.Ref(From, *WeakReference, UGC_REF_WEAK, nullptr);
		}
		return true;
	}

	virtual bool IsIgnoringArchetypeRef() const override { return false; }
	virtual bool IsIgnoringTransient() const override { return false; }
	// The FGCObject referencer reports its initial references only to a
	// collector that asks (GCObjectReferencer.cpp:60).
	virtual bool NeedsInitialReferences() const override { return true; }

private:
	// The holder is the FGCObject being asked (GCObject.h:83); the references
	// UGCObjectReferencer's own Super::AddReferencedObjects adds come while
	// none is, and the GC names their referencer "Unknown"
	// (GarbageCollection.cpp:3193-3212) — so do we.  The member is what the
	// holder says by GetReferencerPropertyName (GCObject.h:187), else the
	// property the collector was given.
	void GCObjectReference(UObject* Object, const FProperty* ReferencingProperty)
	{
		FGCObject* Holder = FGCObject::GGCObjectReferencer ?
			FGCObject::GGCObjectReferencer->GetCurrentlySerializingObject() : nullptr;
		FString Name = Holder ? Holder->GetReferencerName() : FString();
		if (Name.IsEmpty()) // the format needs a name; an FGCObject that gives none is as unknown
		{
			Name = TEXT("Unknown");
		}
		FString Member;
		const bool bMember = Holder && Holder->GetReferencerPropertyName(Object, Member);
		FTCHARToUTF8 Name8(*Name), Member8(*Member);
		Sink.Error = ugc_writer_gcref(Sink.Writer, Name8.Get(), (int32)Object->GetUniqueID(),
			bMember ? Member8.Get() : Sink.PropertyName(ReferencingProperty));
	}

	FUgcSink& Sink;
};

double Seconds()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The engine record: the version (Misc/EngineVersion.h), the build
// configuration (FApp::GetBuildConfiguration, Misc/App.h:47, named by
// LexToString, GenericPlatformMisc.h:94) and game or editor.
FString EngineText()
{
	return FString::Printf(TEXT("%s (%s, %s)"), *FEngineVersion::Current().ToString(),
		LexToString(FApp::GetBuildConfiguration()), GIsEditor ? TEXT("editor") : TEXT("game"));
}

// Why the heap cannot be captured now, or empty.  A console command runs on
// the game thread from the frame's tick, never inside CollectGarbage; what
// can be half done between two frames is the previous GC's incremental
// reachability pass, unhashing or purge (UObjectGlobals.h:906-927, exported):
// while any is pending, objects carry flags the format does not describe.
// While packages are loading, objects appear and are filled in under the walk.
FString NotNow()
{
	if (IsIncrementalReachabilityAnalysisPending())
	{
		return TEXT("an incremental reachability analysis is in progress");
	}
	if (IsIncrementalUnhashPending() || IsIncrementalPurgePending())
	{
		return TEXT("the last garbage collection is still unhashing or purging objects");
	}
	if (IsAsyncLoading()) // CoreGlobals.h:449
	{
		return TEXT("packages are being loaded (add -flush to finish loading them first)");
	}
	return FString();
}

// The immutable reference the GC adds in editor builds besides Class and
// Outer: the external package, unless the object is that package
// (FastReferenceCollector.h:973-976; UObjectBase.h:189).
const UObject* ExternalPackage(const UObject* Obj)
{
#if WITH_EDITOR
	const UPackage* Package = Obj->GetExternalPackageInternal();
	return Package != Obj ? Package : nullptr;
#else
	return nullptr;
#endif
}

// Bytes the object alone accounts for, as ObjectMemoryAnalyzer counts them.
uint64 ObjectSize(UObject* Obj)
{
	FArchiveCountMem Count(Obj);
	return (uint64)Count.GetMax() + (uint64)Obj->GetResourceSizeBytes(EResourceSizeMode::Exclusive);
}

// Capture traits read from virtual functions: NotReadyForFinishDestroy, from
// IsReadyForFinishDestroy, asked only of objects whose destruction has begun,
// the only ones for which it means anything.  GameThreadDestroy is not
// written: 5.5 deprecates IsDestructionThreadSafe (Object.h:616) and
// destroys every object on the game thread.
uint32 Traits(UObject* Obj)
{
	uint32 T = 0;
	if (Obj->HasAnyFlags(RF_BeginDestroyed) && !Obj->HasAnyFlags(RF_FinishDestroyed) && !Obj->IsReadyForFinishDestroy())
	{
		T |= UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY;
	}
	return T;
}

int WriteObjects(FUgcSink& Sink, bool bSizes)
{
	// What the engine's own object iterators leave out: Unreachable,
	// PendingConstruction and the async loading flags (UObjectIterator.h:59-62).
	// Such an object is written (it holds its slot, its flags say why), but
	// not its references, size or traits: it is not finished.
	const EInternalObjectFlags Unfinished = GetObjectIteratorDefaultInternalExclusionFlags(EInternalObjectFlags::None);
	FUgcWeakPointerArchive Archive(Sink);
	FUgcCollector Properties(Sink, FUgcCollector::EWalk::Properties);
	FUgcCollector Collector(Sink, FUgcCollector::EWalk::AddReferencedObjects);
	for (FRawObjectIterator It(false); It && Sink.Error == UGC_OK; ++It)
	{
		FUObjectItem* Item = *It;
		UObject* Obj = static_cast<UObject*>(Item->Object);
		const bool bUnfinished = Item->HasAnyFlags(Unfinished);
		UObject* Outer = Obj->GetOuter();
		FTCHARToUTF8 Name(*Obj->GetFName().ToString());
		ugc_object Rec;
		Rec.index = (int32)It.GetIndex();
		Rec.serial = (uint32)Item->GetSerialNumber();
		Rec.class_index = (int32)Obj->GetClass()->GetUniqueID();
		Rec.outer_index = Outer ? (int32)Outer->GetUniqueID() : UGC_NONE;
		Rec.name = Name.Get();
		Rec.size = bSizes && !bUnfinished ? ObjectSize(Obj) : 0;
		Rec.object_flags = (uint32)Obj->GetFlags();
		Rec.internal_flags = (uint32)Item->GetFlags();
		Rec.traits = bUnfinished ? 0 : Traits(Obj);
		Sink.Error = ugc_writer_object(Sink.Writer, &Rec);
		if (Sink.Error != UGC_OK || bUnfinished)
		{
			continue;
		}
		// Class and Outer are implicit immutable references: not written.
		Sink.Ref(Rec.index, ExternalPackage(Obj), UGC_REF_IMMUTABLE, nullptr);
		Properties.From = Rec.index;
		Properties.AddPropertyReferencesWithStructARO(Obj->GetClass(), Obj, Obj);
		Archive.From = Rec.index;
		Obj->GetClass()->SerializeBin(Archive, Obj);
		// The FGCObject referencer's AddReferencedObjects is written as "g"
		// records (WriteGCObjectReferences), not as its own.
		if (Obj != FGCObject::GGCObjectReferencer)
		{
			Collector.From = Rec.index;
			Obj->GetClass()->CallAddReferencedObjects(Obj, Collector);
		}
	}
	return Sink.Error;
}

// UGCObjectReferencer::AddReferencedObjects (GCObject.h:71, exported) asks
// every registered FGCObject, then its own Super::AddReferencedObjects.
int WriteGCObjectReferences(FUgcSink& Sink)
{
	if (FGCObject::GGCObjectReferencer && Sink.Error == UGC_OK)
	{
		FUgcCollector Collector(Sink, FUgcCollector::EWalk::GCObjects);
		UGCObjectReferencer::AddReferencedObjects(FGCObject::GGCObjectReferencer, Collector);
	}
	return Sink.Error;
}

int WriteClusters(ugc_writer* Writer)
{
	for (const FUObjectCluster& C : GUObjectClusters.GetClustersUnsafe())
	{
		if (C.RootIndex == INDEX_NONE) // a free slot
		{
			continue;
		}
		const int Rc = ugc_writer_cluster(Writer, C.RootIndex, C.Objects.GetData(), (size_t)C.Objects.Num(),
			C.MutableObjects.GetData(), (size_t)C.MutableObjects.Num(),
			C.ReferencedClusters.GetData(), (size_t)C.ReferencedClusters.Num());
		if (Rc != UGC_OK)
		{
			return Rc;
		}
	}
	return UGC_OK;
}

int WriteHeader(ugc_writer* Writer)
{
	int Rc = ugc_writer_engine(Writer, TCHAR_TO_UTF8(*EngineText()));
	// GARBAGE_COLLECTION_KEEPFLAGS is RF_Standalone in the editor (GarbageCollection.h)
	if (Rc == UGC_OK) Rc = ugc_writer_mode(Writer, GIsEditor ? 1 : 0);
	if (Rc == UGC_OK) Rc = ugc_writer_first_gc_index(Writer, GUObjectArray.GetFirstGCIndex());
	if (Rc == UGC_OK) Rc = ugc_writer_label(Writer, "ugc.Capture");
	// whether this run eliminates references to garbage at all (UObjectBaseUtility.h:360)
	if (Rc == UGC_OK) Rc = ugc_writer_garbage_elimination(Writer, UObjectBaseUtility::IsGarbageEliminationEnabled() ? 1 : 0);
	return Rc;
}
} // namespace

bool UgcCaptureHeap(const FUgcCaptureOptions& Options, FOutputDevice& Out)
{
	const double Start = Seconds();
	if (Options.bFlushAsyncLoading && IsAsyncLoading())
	{
		FlushAsyncLoading(); // UObjectGlobals.h:1006
	}
	const FString Why = NotNow();
	if (!Why.IsEmpty())
	{
		Out.Logf(TEXT("ugc.Capture: not now: %s; run ugc.Capture again on a later frame"), *Why);
		return false;
	}
	ugc_options Opt = UGC_OPTIONS_INIT;
	Opt.overwrite = 1;
	ugc_writer* Writer = nullptr;
	char Err[512];
	// the library takes a UTF-8 path and opens it by its wide form on Windows
	if (ugc_writer_open(&Writer, TCHAR_TO_UTF8(*Options.Path), &Opt, Err, sizeof Err) != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(Err));
		return false;
	}
	FUgcSink Sink;
	Sink.Writer = Writer;
	Sink.Error = WriteHeader(Writer);
	{
		// The walk takes seconds: keep the hang detector quiet, as
		// FReferenceChainSearch does (ReferenceChainSearch.cpp:1572;
		// HAL/ThreadHeartBeat.h:260).  No object index is allocated or freed
		// while the array is locked; it does not stop other threads from
		// changing objects (the real GC lock is private).
		FSlowHeartBeatScope DisableHangDetection;
		GUObjectArray.LockInternalArray();
		if (Sink.Error == UGC_OK) WriteObjects(Sink, Options.bSizes);
		if (Sink.Error == UGC_OK) WriteGCObjectReferences(Sink);
		if (Sink.Error == UGC_OK) Sink.Error = WriteClusters(Writer);
		GUObjectArray.UnlockInternalArray();
	}

	if (Sink.Error != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(ugc_writer_error(Writer)));
		ugc_writer_abort(Writer);
		return false;
	}
	ugc_stats Stats;
	if (ugc_writer_close(Writer, &Stats, Err, sizeof Err) != UGC_OK)
	{
		Out.Logf(TEXT("ugc.Capture: %s"), UTF8_TO_TCHAR(Err));
		return false;
	}
	Out.Logf(TEXT("ugc.Capture: wrote %s: %llu objects, %llu references, %llu FGCObject references, %llu clusters, ")
		TEXT("%.1f MiB in %.2f s (%llu names cut to the format's limits)"),
		*Options.Path, (unsigned long long)Stats.objects, (unsigned long long)Stats.refs,
		(unsigned long long)Stats.gcrefs, (unsigned long long)Stats.clusters,
		(double)Stats.file_bytes / (1024.0 * 1024.0), Seconds() - Start, (unsigned long long)Stats.names_cut);
	return true;
}
