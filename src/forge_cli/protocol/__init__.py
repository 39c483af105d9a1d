"""The typed wire protocol: tools, requests, responses, output items, annotations, events.

Pure pydantic values, no I/O. Everything a user of the library may import is listed here.
"""

from __future__ import annotations

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
from forge_cli.protocol.events import StreamEvent
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
from forge_cli.protocol.parse import parse_annotation, parse_item, parse_response, parse_tool
from forge_cli.protocol.request import InputItem, InputMessage, Request, ToolChoice
from forge_cli.protocol.response import Response, ResponseError, Usage
from forge_cli.protocol.text import TextBuffer, TextView
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
from forge_cli.protocol.traceable import TraceableToolCall

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
