"""The typed wire protocol: tools, requests, responses, output items, annotations, events.

Pure pydantic values, no I/O. Everything a user of the library may import is listed here.
Exports resolve lazily (module ``__getattr__``): ``forge ask`` needs only the request and tool
models before it sends its first request; the response and item models load while it waits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.protocol.annotations import (
        Annotation,
        ContainerFileCitation,
        FileCitation,
        FilePath,
        UnknownAnnotation,
        UrlCitation,
    )
    from forge_cli.protocol.content import (
        ContentPart,
        OutputText,
        ReasoningText,
        Refusal,
        SummaryText,
        UnknownPart,
    )
    from forge_cli.protocol.events import (
        StreamEvent,
    )
    from forge_cli.protocol.items import (
        CodeInterpreterCall,
        ComputerCall,
        FileReaderCall,
        FileSearchCall,
        FileSearchResult,
        FunctionCall,
        FunctionCallOutput,
        ListDocumentsCall,
        Message,
        OutputItem,
        PageReaderCall,
        Reasoning,
        UnknownItem,
        WebSearchAction,
        WebSearchCall,
        WebSearchSource,
    )
    from forge_cli.protocol.parse import (
        parse_annotation,
        parse_item,
        parse_response,
        parse_tool,
    )
    from forge_cli.protocol.request import (
        InputItem,
        InputMessage,
        Request,
        ToolChoice,
    )
    from forge_cli.protocol.response import (
        Response,
        ResponseError,
        Usage,
    )
    from forge_cli.protocol.text import (
        TextBuffer,
        TextView,
    )
    from forge_cli.protocol.tools import (
        CodeInterpreterTool,
        ComputerUsePreviewTool,
        FileReaderTool,
        FileSearchTool,
        FunctionTool,
        ListDocumentsTool,
        PageReaderTool,
        RankingOptions,
        Tool,
        UnknownTool,
        UserLocation,
        WebSearchPreviewTool,
        WebSearchTool,
    )
    from forge_cli.protocol.traceable import (
        TraceableToolCall,
    )

_WHERE = {
    "Annotation": "annotations",
    "CodeInterpreterCall": "items",
    "CodeInterpreterTool": "tools",
    "ComputerCall": "items",
    "ComputerUsePreviewTool": "tools",
    "ContainerFileCitation": "annotations",
    "ContentPart": "content",
    "FileCitation": "annotations",
    "FilePath": "annotations",
    "FileReaderCall": "items",
    "FileReaderTool": "tools",
    "FileSearchCall": "items",
    "FileSearchResult": "items",
    "FileSearchTool": "tools",
    "FunctionCall": "items",
    "FunctionCallOutput": "items",
    "FunctionTool": "tools",
    "InputItem": "request",
    "InputMessage": "request",
    "ListDocumentsCall": "items",
    "ListDocumentsTool": "tools",
    "Message": "items",
    "OutputItem": "items",
    "OutputText": "content",
    "PageReaderCall": "items",
    "PageReaderTool": "tools",
    "RankingOptions": "tools",
    "Reasoning": "items",
    "ReasoningText": "content",
    "Refusal": "content",
    "Request": "request",
    "Response": "response",
    "ResponseError": "response",
    "StreamEvent": "events",
    "SummaryText": "content",
    "TextBuffer": "text",
    "TextView": "text",
    "Tool": "tools",
    "ToolChoice": "request",
    "TraceableToolCall": "traceable",
    "UnknownAnnotation": "annotations",
    "UnknownItem": "items",
    "UnknownPart": "content",
    "UnknownTool": "tools",
    "UrlCitation": "annotations",
    "Usage": "response",
    "UserLocation": "tools",
    "WebSearchAction": "items",
    "WebSearchCall": "items",
    "WebSearchPreviewTool": "tools",
    "WebSearchSource": "items",
    "WebSearchTool": "tools",
    "parse_annotation": "parse",
    "parse_item": "parse",
    "parse_response": "parse",
    "parse_tool": "parse",
}

__all__ = [
    "Annotation",
    "CodeInterpreterCall",
    "CodeInterpreterTool",
    "ComputerCall",
    "ComputerUsePreviewTool",
    "ContainerFileCitation",
    "ContentPart",
    "FileCitation",
    "FilePath",
    "FileReaderCall",
    "FileReaderTool",
    "FileSearchCall",
    "FileSearchResult",
    "FileSearchTool",
    "FunctionCall",
    "FunctionCallOutput",
    "FunctionTool",
    "InputItem",
    "InputMessage",
    "ListDocumentsCall",
    "ListDocumentsTool",
    "Message",
    "OutputItem",
    "OutputText",
    "PageReaderCall",
    "PageReaderTool",
    "RankingOptions",
    "Reasoning",
    "ReasoningText",
    "Refusal",
    "Request",
    "Response",
    "ResponseError",
    "StreamEvent",
    "SummaryText",
    "TextBuffer",
    "TextView",
    "Tool",
    "ToolChoice",
    "TraceableToolCall",
    "UnknownAnnotation",
    "UnknownItem",
    "UnknownPart",
    "UnknownTool",
    "UrlCitation",
    "Usage",
    "UserLocation",
    "WebSearchAction",
    "WebSearchCall",
    "WebSearchPreviewTool",
    "WebSearchSource",
    "WebSearchTool",
    "parse_annotation",
    "parse_item",
    "parse_response",
    "parse_tool",
]

__getattr__ = lazy_exports(__name__, _WHERE)
