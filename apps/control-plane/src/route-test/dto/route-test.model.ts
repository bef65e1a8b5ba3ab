import { Field, Float, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';

@InputType()
export class RouteTestInput {
  @Field() agentId!: string;
  @Field(() => JSONScalar, { description: 'A routing-tests document (the routing-tests.yaml format as JSON).' }) tests!: unknown;
  @Field(() => [JSONScalar], {
    nullable: true,
    description:
      "The agent's WHOLE desired manifest set (as applyManifests takes it). Absent: the current registry. Given: routes through the index it would produce, and lists the labelled messages whose route changes.",
  })
  manifests?: unknown[] | null;
}

@ObjectType('RouteCandidate', {
  description: "A capability the router's classifier considered, with its score (comparable within one decision).",
})
export class RouteCandidateModel {
  @Field() id!: string;
  @Field(() => Float) score!: number;
}

@ObjectType('RouteTestResult')
export class RouteTestResultModel {
  @Field(() => Int) index!: number;
  @Field() text!: string;
  @Field() expect!: string;
  @Field({ description: 'A capability id, "clarify", or "failed".' }) got!: string;
  @Field(() => Float, { nullable: true }) confidence?: number | null;
  @Field() correct!: boolean;
  @Field() wrong!: boolean;
  @Field(() => String, {
    nullable: true,
    description:
      'The router layer that decided: bound-task, only-candidate, data-shape, hint, classifier, or clarification (the classifier was not sure enough); null when routing failed.',
  })
  layer!: string | null;
  @Field({ description: 'Why that layer decided as it did (the failure message when routing failed).' }) reason!: string;
  @Field(() => [RouteCandidateModel], {
    description:
      "The classifier's candidates with their scores, best first; only capabilities in this caller's router index. Empty when an earlier layer decided.",
  })
  candidates!: RouteCandidateModel[];
  @Field(() => Int, { description: "How many capabilities this caller's router index holds (what the router chooses from)." })
  indexSize!: number;
}

@ObjectType('RouteChange', {
  description: 'A labelled message whose route differs between the current registry and the proposed manifests.',
})
export class RouteChangeModel {
  @Field(() => Int) index!: number;
  @Field() text!: string;
  @Field() expect!: string;
  @Field() before!: string;
  @Field() after!: string;
}

@ObjectType('RouteTestReport')
export class RouteTestReportModel {
  @Field(() => Int) revision!: number;
  @Field(() => Int) total!: number;
  @Field(() => Int) correct!: number;
  @Field(() => Float) accuracy!: number;
  @Field(() => Float) minAccuracy!: number;
  @Field(() => Int) wrongRoutes!: number;
  @Field(() => Int) falseClarifications!: number;
  @Field(() => Int) correctClarifications!: number;
  @Field({ description: 'No wrong route and accuracy ≥ minAccuracy.' }) passed!: boolean;
  @Field(() => [RouteTestResultModel]) results!: RouteTestResultModel[];
  @Field(() => [RouteChangeModel]) changes!: RouteChangeModel[];
}
